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

    /// A schema name no other test uses: `t_<prefix>_<12 hex digits>`.
    public static func uniqueSchema(_ prefix: String) -> String {
        let hex = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        return "t_\(prefix)_\(hex.prefix(12))"
    }
}
