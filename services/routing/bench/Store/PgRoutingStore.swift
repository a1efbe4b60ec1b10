import Foundation
import Logging
import PostgresNIO
import RoutingService
import Store

/// pgRouting in the PostgreSQL of `DATABASE_URL`: the campus graph in `routing_bench.edges`,
/// and `pgr_dijkstra` over it.
struct PgRoutingStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Runs `body` with a store whose client runs for as long as the body.
    static func with(logger: Logger, _ body: (PgRoutingStore) async throws -> Void) async throws {
        try await BenchDatabase.with(logger: logger) { client in
            try await body(PgRoutingStore(client: client, logger: logger))
        }
    }

    /// What a database without pgRouting needs.
    static let setupHint =
        "install postgresql-15-pgrouting and have a superuser run CREATE EXTENSION pgrouting CASCADE (with PostGIS)"

    /// Creates the extension when it is missing; answers pgRouting's version.
    func prepare() async throws -> String {
        try await client.fetch("CREATE EXTENSION IF NOT EXISTS pgrouting", logger: logger)
        for try await value in try await client.fetch("SELECT pgr_version()::text", logger: logger).decode(String.self)
        {
            return value
        }
        return "?"
    }

    /// Writes the graph to `routing_bench.edges` (directed, `fastest` seconds without crowds),
    /// replacing what was there.
    func load(_ campus: Campus) async throws {
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
        let logger = self.logger
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

    /// The cost of the cheapest path from node `from` to node `to` by `pgr_dijkstra`; nil when none.
    func cost(from: Int, to: Int) async throws -> Double? {
        let rows = try await client.fetch(
            """
            SELECT agg_cost FROM pgr_dijkstra(
              'SELECT id, source, target, cost FROM routing_bench.edges', \(Int64(from)), \(Int64(to)), true)
            WHERE edge = -1
            """, logger: logger)
        var cost: Double?
        for try await value in rows.decode(Double.self) { cost = value }
        return cost
    }
}
