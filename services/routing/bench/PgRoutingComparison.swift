import Foundation
import Logging
import PostgresNIO
import RoutingService
import ServiceKit
import Store

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
        let client = PostgresClient(
            configuration: try DatabaseSettings.fromEnvironment().clientConfiguration(), backgroundLogger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let version: String
            do {
                try await client.fetch("CREATE EXTENSION IF NOT EXISTS pgrouting", logger: logger)
                version = try await scalar("SELECT pgr_version()::text", client, logger)
            } catch {
                print(
                    "pgRouting comparison skipped (\(String(reflecting: error).prefix(200))): install "
                        + "postgresql-15-pgrouting and have a superuser run CREATE EXTENSION pgrouting CASCADE (with PostGIS)"
                )
                return
            }
            try await load(campus, client: client, logger: logger)
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
                let rows = try await client.fetch(
                    """
                    SELECT agg_cost FROM pgr_dijkstra(
                      'SELECT id, source, target, cost FROM routing_bench.edges', \(Int64(from)), \(Int64(to)), true)
                    WHERE edge = -1
                    """, logger: logger)
                var cost: Double?
                for try await value in rows.decode(Double.self) { cost = value }
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
            group.cancelAll()
        }
    }

    /// Writes the graph to `routing_bench.edges`, replacing what was there.
    static func load(_ campus: Campus, client: PostgresClient, logger: Logger) async throws {
        let graph = campus.graph
        var ids: [Int64] = []
        var sources: [Int64] = []
        var targets: [Int64] = []
        var costs: [Double] = []
        for node in 0..<graph.nodeCount {
            for edge in Int(graph.edgeStart[node])..<Int(graph.edgeStart[node + 1]) {
                ids.append(Int64(edge))
                sources.append(Int64(node))
                targets.append(Int64(graph.edgeTarget[edge]))
                costs.append(Double(campus.fastestSeconds[edge]))
            }
        }
        try await client.transaction(logger: logger) { connection in
            try await connection.fetch("CREATE SCHEMA IF NOT EXISTS routing_bench", logger: logger)
            try await connection.fetch("DROP TABLE IF EXISTS routing_bench.edges", logger: logger)
            try await connection.fetch(
                "CREATE TABLE routing_bench.edges (id bigint PRIMARY KEY, source bigint, target bigint, cost float8)",
                logger: logger)
            try await connection.fetch(
                """
                INSERT INTO routing_bench.edges (id, source, target, cost)
                SELECT * FROM unnest(\(ids)::bigint[], \(sources)::bigint[], \(targets)::bigint[], \(costs)::float8[])
                """, logger: logger)
        }
    }

    static func scalar(_ query: PostgresQuery, _ client: PostgresClient, _ logger: Logger) async throws -> String {
        for try await value in try await client.fetch(query, logger: logger).decode(String.self) { return value }
        return "?"
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
