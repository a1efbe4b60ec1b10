import Contract
import Foundation
import RoutingService
import ServiceKit

/// `routing --bench`: route query latency in process on the sample campus (and a synthetic
/// graph of a million nodes), printed as p50/p99. Pure CPU; needs no database or broker.
enum RouteBenchmark {
    /// Runs the benchmark and prints a report; `queries` per profile on the sample campus.
    public static func run(queries: Int = 20_000, largeQueries: Int = 100, largeSide: Int = 1000) throws {
        let started = ContinuousClock.now
        let map = try CampusMap.load(osm: try RoutingService.sampleCampus())
        let campus = Campus(graph: map.graph, accessPoints: map.accessPoints)
        let loadTime = ContinuousClock.now - started
        print(
            "sample campus: \(campus.graph.nodeCount) nodes, \(campus.graph.edgeCount) edges, "
                + "\(map.venues.count) venues, \(map.accessPoints.count) access points; import with landmarks \(format(loadTime))"
        )
        var random = SeededRandom(seed: 42)
        let pairs = (0..<queries).map { _ in
            (Int(random.next() % UInt64(campus.graph.nodeCount)), Int(random.next() % UInt64(campus.graph.nodeCount)))
        }
        var crowd = [Float](repeating: 1, count: campus.accessPoints.count)
        for index in crowd.indices where index % 3 == 0 { crowd[index] = 2.5 }
        let planner = RoutePlanner()
        for profile in RouteProfile.allCases {
            var samples: [Duration] = []
            var cpu: [Duration] = []
            samples.reserveCapacity(queries)
            cpu.reserveCapacity(queries)
            var settled = 0
            var found = 0
            for (from, to) in pairs {
                let begin = ContinuousClock.now
                let cpuBegin = threadCPUTime()
                let path = planner.route(on: campus, crowd: crowd, from: from, to: to, profile: profile)
                cpu.append(threadCPUTime() - cpuBegin)
                samples.append(ContinuousClock.now - begin)
                if let path {
                    settled += path.settled
                    found += 1
                }
            }
            print(
                "  \(profile.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) A* search: "
                    + summary(samples)
                    + "; routes found \(found)/\(queries), mean settled nodes \(settled / max(1, found))")
            print("             same, CPU time of the thread: " + summary(cpu))
        }
        let describe = RouteDescription(campus: campus)
        var full: [Duration] = []
        for (from, to) in pairs.prefix(queries / 4) {
            let begin = ContinuousClock.now
            if let path = planner.route(on: campus, crowd: crowd, from: from, to: to, profile: .fastest) {
                _ = describe.describe(path, profile: .fastest, crowd: crowd)
            }
            full.append(ContinuousClock.now - begin)
        }
        print("  fastest search + steps and path: " + summary(full))

        guard largeQueries > 0 else { return }
        let gridStart = ContinuousClock.now
        var gridRandom = SeededRandom(seed: random.next())
        let plain = Campus.syntheticGrid(side: largeSide, random: &gridRandom, landmarkCount: 0)
        print(
            "synthetic grid: \(plain.graph.nodeCount) nodes, \(plain.graph.edgeCount) edges; built in "
                + format(ContinuousClock.now - gridStart))
        let landmarkStart = ContinuousClock.now
        let grid = plain.withLandmarks(count: Campus.defaultLandmarkCount, profiles: [.fastest])
        print(
            "  \(Campus.defaultLandmarkCount) ALT landmarks for fastest computed in "
                + format(ContinuousClock.now - landmarkStart))
        let largePairs = (0..<largeQueries).map { _ in
            (Int(random.next() % UInt64(grid.graph.nodeCount)), Int(random.next() % UInt64(grid.graph.nodeCount)))
        }
        for (name, campus) in [("A* (straight line)", plain), ("A* + landmarks", grid)] {
            var large: [Duration] = []
            var settled = 0
            for (from, to) in largePairs {
                let begin = threadCPUTime()
                let path = planner.route(on: campus, crowd: [], from: from, to: to, profile: .fastest)
                large.append(threadCPUTime() - begin)
                settled += path?.settled ?? 0
            }
            print(
                "  fastest \(name), CPU time: " + summary(large)
                    + "; mean settled nodes \(settled / max(1, largeQueries))")
        }
    }

    /// CPU time of the calling thread: unlike wall time, not inflated when other processes
    /// share the cores.
    static func threadCPUTime() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }

    static func summary(_ samples: [Duration]) -> String {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return "no samples" }
        func at(_ q: Double) -> Duration { sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] }
        return "p50 \(format(at(0.5))), p99 \(format(at(0.99))), max \(format(sorted.last!)) (n=\(sorted.count))"
    }

    static func format(_ duration: Duration) -> String {
        let micros = Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
        return micros < 1000 ? String(format: "%.0f µs", micros) : String(format: "%.2f ms", micros / 1000)
    }
}
