import Logging
import PostgresNIO
import Store

/// The PostgreSQL of `DATABASE_URL`, its client running for as long as the bench's body.
enum BenchDatabase {
    static func with(logger: Logger, _ body: (PostgresClient) async throws -> Void) async throws {
        let client = PostgresClient(
            configuration: try DatabaseSettings.fromEnvironment().clientConfiguration(), backgroundLogger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await body(client)
            group.cancelAll()
        }
    }
}
