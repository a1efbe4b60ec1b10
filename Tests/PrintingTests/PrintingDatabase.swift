import Foundation
import Logging
import PostgresNIO
import Store

@testable import PrintingService

/// The printing service's parts against the real PostgreSQL of `DATABASE_URL` (schema `printing`,
/// migrated), with a clock the test moves.
struct PrintingFixture: Sendable {
    let client: PostgresClient
    let clock: ManualClock
    let store: PostageStore
    let desk: PostageDesk

    static let logger: Logger = {
        var logger = Logger(label: "printing-test")
        logger.logLevel = .critical
        return logger
    }()

    /// Runs `body` with a migrated database; the clock starts at `start`.
    static func with(at start: Date, _ body: @Sendable (PrintingFixture) async throws -> Void) async throws {
        let client = PostgresClient(
            configuration: try DatabaseSettings.fromEnvironment().clientConfiguration(), backgroundLogger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await Migrator(client: client, schema: "printing", logger: logger).migrate(
                PrintingService.migrations())
            let clock = ManualClock(start)
            let store = PostageStore(client: client, logger: logger)
            let desk = PostageDesk(store: store, schema: PostageSamples.schema, clock: clock, logger: logger)
            try await body(PrintingFixture(client: client, clock: clock, store: store, desk: desk))
            group.cancelAll()
        }
    }

    /// Noon UTC of `day` (`YYYY-MM-DD`).
    static func noon(_ day: String) -> Date {
        ISO8601DateFormatter().date(from: "\(day)T12:00:00Z")!
    }
}
