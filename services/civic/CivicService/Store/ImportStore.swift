import Foundation
import Logging
import PostgresNIO

/// The importer's bookkeeping: where each feed left off (`civic.import_cursors`) and one row
/// per run (`civic.import_runs`).
public struct ImportStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The `updated_since` the next run of `kind` for `jurisdiction` starts from, or nil.
    func cursor(_ jurisdiction: String, _ kind: String) async throws -> Date? {
        let rows = try await client.fetch(
            """
            SELECT updated_since FROM civic.import_cursors
            WHERE jurisdiction_id = \(jurisdiction) AND kind = \(kind)
            """, logger: logger)
        for try await since in rows.decode(Date.self) { return since }
        return nil
    }

    /// Moves the cursor on (never back), after a page of bills is applied.
    func advance(_ jurisdiction: String, _ kind: String, to since: Date) async throws {
        try await client.fetch(
            """
            INSERT INTO civic.import_cursors (jurisdiction_id, kind, updated_since)
            VALUES (\(jurisdiction), \(kind), \(since))
            ON CONFLICT (jurisdiction_id, kind) DO UPDATE SET updated_since = excluded.updated_since
            WHERE civic.import_cursors.updated_since < excluded.updated_since
            """, logger: logger)
    }

    func started(_ run: UUID, at now: Date) async throws {
        try await client.fetch(
            "INSERT INTO civic.import_runs (id, started_at) VALUES (\(run), \(now))", logger: logger)
    }

    func finished(_ run: UUID, at now: Date, _ report: ImportReport, error: String?) async throws {
        try await client.fetch(
            """
            UPDATE civic.import_runs SET finished_at = \(now), pages = \(report.pages), bills_new = \(report.billsNew),
                bills_changed = \(report.billsChanged), people = \(report.people), meetings = \(report.meetings),
                throttled = \(report.throttled), retries = \(report.retries), error = \(error)
            WHERE id = \(run)
            """, logger: logger)
    }
}

/// What one import run did.
public struct ImportReport: Sendable, Equatable, Codable {
    public var pages = 0
    public var billsNew = 0
    public var billsChanged = 0
    public var billsUnchanged = 0
    public var people = 0
    public var meetings = 0
    public var throttled = 0
    public var retries = 0
    public init() {}
}
