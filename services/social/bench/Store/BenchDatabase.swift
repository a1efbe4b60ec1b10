import Logging
import PostgresNIO
import Store

/// The bench's PostgreSQL client (`DATABASE_URL`), running while `body` runs.
enum BenchDatabase {
    static func with(
        maximumConnections: Int, logger: Logger, _ body: @Sendable (PostgresClient) async throws -> Void
    ) async throws {
        var configuration = try DatabaseSettings.fromEnvironment().clientConfiguration()
        configuration.options.maximumConnections = maximumConnections
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await body(client)
            group.cancelAll()
        }
    }
}
