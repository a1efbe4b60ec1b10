import Foundation
import Logging
import PostgresNIO
import Store

/// The real PostgreSQL of `DATABASE_URL` for a test: one place that opens it, so every suite
/// meets the database the same way (and `TEST_LAYERS=unit` leaves them all out at this door).
public enum PostgresFixture {
    /// Runs `body` with a client for `DATABASE_URL` (or the default URL) running beside it, at
    /// most `maximumConnections` at once; cancels the test when the database layer is left out
    /// (``TestLayers``).
    public static func withClient<T>(
        maximumConnections: Int = 20, logger: Logger, _ body: (PostgresClient) async throws -> T
    ) async throws -> T {
        try TestLayers.requireDatabase()
        var configuration = try DatabaseSettings.fromEnvironment().clientConfiguration()
        configuration.options.maximumConnections = maximumConnections
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }

    /// Runs `body` with a client for a database of this test process's own named
    /// `<prefix>_<pid>` beside the one of `DATABASE_URL` (created on first use, left for the
    /// throwaway server to discard): for suites that drop and re-create a service's schema,
    /// which would pull it from under the processes of the system tests sharing `DATABASE_URL`.
    public static func withOwnDatabase<T>(
        _ prefix: String, maximumConnections: Int = 20, logger: Logger, _ body: (PostgresClient) async throws -> T
    ) async throws -> T {
        try TestLayers.requireDatabase()
        var settings = try DatabaseSettings.fromEnvironment()
        let name = "\(prefix)_\(ProcessInfo.processInfo.processIdentifier)"
        try await withClient(maximumConnections: 1, logger: logger) { client in
            let rows = try await client.query("SELECT 1 FROM pg_database WHERE datname = \(name)", logger: logger)
            var exists = false
            for try await _ in rows { exists = true }
            if !exists {
                do {
                    try await client.query("CREATE DATABASE \(unescaped: name)", logger: logger)
                } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P04" {
                    // Another suite of this process created it meanwhile.
                }
            }
        }
        settings.database = name
        var configuration = settings.clientConfiguration()
        configuration.options.maximumConnections = maximumConnections
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }

    /// A schema name no other test uses: `t_<prefix>_<12 hex digits>`.
    public static func uniqueSchema(_ prefix: String) -> String {
        let hex = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        return "t_\(prefix)_\(hex.prefix(12))"
    }
}
