import Foundation
import Logging
import RoutingService
import ServiceKit

/// The second half of `routing --bench` when `DATABASE_URL` is set: the same route questions on
/// the sample campus answered by pgRouting's `pgr_dijkstra` inside PostgreSQL, against the
/// in-process A*, with the ratio. The graph goes to the table `routing_bench.edges` (directed,
/// `fastest` seconds without crowds, the weights the A* uses here too).
enum PgRoutingComparison {
    /// Runs the comparison on `queries` seeded random pairs and prints a report.
    public static func run(queries: Int = 300) async throws {
        var logger = Logger(label: "routing-bench")
        logger.logLevel = .error
        let map = try CampusMap.load(osm: try RoutingService.sampleCampus())
        let campus = Campus(graph: map.graph, accessPoints: map.accessPoints)
        var random = SeededRandom(seed: 7)
        let pairs = (0..<queries).map { _ in
            (Int(random.next() % UInt64(campus.graph.nodeCount)), Int(random.next() % UInt64(campus.graph.nodeCount)))
        }.filter { $0.0 != $0.1 }
        try await PgRoutingStore.with(logger: logger) { store in
            let version: String
            do {
                version = try await store.prepare()
            } catch {
                print(
                    "pgRouting comparison skipped (\(String(reflecting: error).prefix(200))): "
                        + PgRoutingStore.setupHint)
                return
            }
            try await store.load(campus)
            let planner = RoutePlanner()
            let neutral = [Float](repeating: 1, count: campus.accessPoints.count)
            var inProcess: [Duration] = []
            var inDatabase: [Duration] = []
            var agreeing = 0
            for (from, to) in pairs {
                let begin = ContinuousClock.now
                let path = planner.route(on: campus, crowd: neutral, from: from, to: to, profile: .fastest)
                inProcess.append(ContinuousClock.now - begin)
                let started = ContinuousClock.now
                let cost = try await store.cost(from: from, to: to)
                inDatabase.append(ContinuousClock.now - started)
                if let cost, let path, abs(cost - Double(path.cost)) <= 0.001 * max(1, cost) { agreeing += 1 }
                if cost == nil, path == nil { agreeing += 1 }
            }
            print(
                "pgRouting \(version) pgr_dijkstra on the same graph (\(campus.graph.edgeCount) directed edges, "
                    + "fastest seconds, no crowds), \(pairs.count) pairs, wall time per query:")
            print("  pgr_dijkstra (query round trip): " + RouteBenchmark.summary(inDatabase))
            print("  in-process A*:                   " + RouteBenchmark.summary(inProcess))
            print(
                "  in-process A* is \(ratio(inDatabase, inProcess, at: 0.5))x faster at p50, "
                    + "\(ratio(inDatabase, inProcess, at: 0.99))x at p99; same cost on \(agreeing)/\(pairs.count) pairs"
            )
        }
    }

    static func ratio(_ slow: [Duration], _ fast: [Duration], at quantile: Double) -> Int {
        func at(_ samples: [Duration]) -> Double {
            let sorted = samples.sorted()
            let value = sorted[min(sorted.count - 1, Int(Double(sorted.count) * quantile))]
            return Double(value.components.seconds) + Double(value.components.attoseconds) / 1e18
        }
        return Int((at(slow) / max(at(fast), 1e-9)).rounded())
    }
}
