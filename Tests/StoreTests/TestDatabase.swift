import Foundation
import Logging
import PostgresNIO
import Store
import TestSupport

/// Shared set-up for tests that need the real PostgreSQL named by `DATABASE_URL`: a running
/// client, and a schema of their own (random name) so that tests run in parallel.
enum TestDatabase {
    static let logger: Logger = {
        var logger = Logger(label: "store-tests")
        logger.logLevel = .error
        return logger
    }()

    /// A client for `DATABASE_URL` (or the default URL), running for the duration of `body`.
    static func withClient<T>(_ body: (PostgresClient) async throws -> T) async throws -> T {
        try await PostgresFixture.withClient(maximumConnections: 8, logger: logger, body)
    }

    /// A fresh schema name: `t_<prefix>_<12 hex digits>`.
    static func uniqueSchema(_ prefix: String) -> String { PostgresFixture.uniqueSchema(prefix) }

    /// Runs `body` with a client and a fresh schema name, dropping the schema afterwards.
    static func withSchema<T>(
        _ prefix: String, _ body: (PostgresClient, String) async throws -> T
    ) async throws -> T {
        try await withClient { client in
            let schema = uniqueSchema(prefix)
            do {
                let result = try await body(client, schema)
                try await drop(schema, client: client)
                return result
            } catch {
                try? await drop(schema, client: client)
                throw error
            }
        }
    }

    static func drop(_ schema: String, client: PostgresClient) async throws {
        try await client.query("DROP SCHEMA IF EXISTS \(unescaped: schema) CASCADE", logger: logger)
    }

    /// The single integer a query returns.
    static func scalar(_ query: PostgresQuery, on client: PostgresClient) async throws -> Int {
        let rows = try await client.query(query, logger: logger)
        for try await value in rows.decode(Int.self) { return value }
        throw TestFailure("query returned no row")
    }

    /// Waits until `condition` holds, checking every 20 ms for up to `timeout` seconds. Reads of
    /// the event log are held back by any transaction open anywhere in the cluster, including
    /// other tests running in parallel, so "becomes visible" is asserted by polling.
    static func eventually(
        timeout: TimeInterval = 15, _ what: String, _ condition: () async throws -> Bool
    ) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if try await condition() { return }
            guard Date() < deadline else { throw TestFailure("timed out waiting for: \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// An error thrown by test code itself.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
