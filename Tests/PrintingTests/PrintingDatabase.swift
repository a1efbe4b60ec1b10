import Foundation
import Logging
import PostgresNIO
import Store
import TestSupport

@testable import PrintingService

/// The printing service's parts against the real PostgreSQL of `DATABASE_URL` (schema `printing`,
/// migrated), with a clock the test moves.
struct PrintingFixture: Sendable {
    let client: PostgresClient
    let clock: ManualClock
    let store: PostageStore
    let desk: PostageHandler

    static let logger: Logger = {
        var logger = Logger(label: "printing-test")
        logger.logLevel = .critical
        return logger
    }()

    /// Runs `body` with a migrated database; the clock starts at `start`.
    static func with(at start: Date, _ body: @Sendable (PrintingFixture) async throws -> Void) async throws {
        try await PostgresFixture.withClient(logger: logger) { client in
            try await Migrator(client: client, schema: "printing", logger: logger).migrate(
                PrintingService.migrations())
            let clock = ManualClock(start)
            let store = PostageStore(client: client, logger: logger)
            let desk = PostageHandler(store: store, schema: PostageSamples.schema, clock: clock, logger: logger)
            try await body(PrintingFixture(client: client, clock: clock, store: store, desk: desk))
        }
    }

    /// How many stored versions carry `label` (other suites store versions alongside).
    func versions(label: String) async throws -> Int {
        try await count("SELECT count(*) FROM printing.postage_tariffs WHERE label = \(label)")
    }

    /// How many stored versions are byte for byte `document`.
    func versions(document: String) async throws -> Int {
        try await count(
            """
            SELECT count(*) FROM printing.postage_tariffs
            WHERE sha256 = encode(sha256(convert_to(\(document), 'UTF8')), 'hex')
            """)
    }

    private func count(_ query: PostgresQuery) async throws -> Int {
        for try await count in try await client.query(query, logger: Self.logger).decode(Int64.self) {
            return Int(count)
        }
        return 0
    }

    /// Noon UTC of `day` (`YYYY-MM-DD`).
    static func noon(_ day: String) -> Date {
        ISO8601DateFormatter().date(from: "\(day)T12:00:00Z")!
    }
}
