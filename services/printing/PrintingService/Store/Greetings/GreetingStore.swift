import Contract
import Foundation
import Logging
import PostgresNIO
import PrintingContract
import Store

/// Saved greetings in `printing.saved_greetings`, one user's at a time.
public struct GreetingStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Saves `text` for `owner` unless it holds ``Printing/SaveGreeting/maxPerUser`` already
    /// (then nil); a text the owner saved before answers that row instead of a copy.
    public func save(
        owner: UUID, text: String, occasion: Printing.GreetingOccasion?, at now: Date
    ) async throws -> Printing.SavedGreeting? {
        let id = UUID()
        // One statement: the count and the insert see the same snapshot (two saves at the very
        // same moment may pass the bound by one, which the bound tolerates).
        try await client.fetch(
            """
            INSERT INTO printing.saved_greetings (id, owner_id, text, occasion, created_at)
            SELECT \(id), \(owner), \(text), \(occasion?.rawValue), \(now)
            WHERE (SELECT count(*) FROM printing.saved_greetings WHERE owner_id = \(owner))
                < \(Printing.SaveGreeting.maxPerUser)
            ON CONFLICT (owner_id, text) DO NOTHING
            """, logger: logger)
        let rows = try await client.fetch(
            """
            SELECT id, text, occasion, created_at FROM printing.saved_greetings
            WHERE owner_id = \(owner) AND text = \(text)
            """, logger: logger)
        for try await row in rows.decode((UUID, String, String?, Date).self) { return Self.greeting(row) }
        return nil
    }

    /// A page of `owner`'s greetings, newest first (ties by id).
    public func page(of owner: UUID, _ request: PageRequest) async throws -> Page<Printing.SavedGreeting> {
        let limit = try Printing.ListSavedGreetings.pageSize.limit(request.limit)
        let before = try KeysetCursor.parse(request.cursor)
        let rows = try await client.fetch(
            """
            SELECT id, text, occasion, created_at FROM printing.saved_greetings
            WHERE owner_id = \(owner)
              AND (\(before?.micros)::bigint IS NULL
                   OR (created_at, id) < ('epoch'::timestamptz + \(before?.micros)::bigint * interval '1 microsecond',
                                         \(before?.id)::uuid))
            ORDER BY created_at DESC, id DESC LIMIT \(limit + 1)
            """, logger: logger)
        var fetched: [Printing.SavedGreeting] = []
        for try await row in rows.decode((UUID, String, String?, Date).self) { fetched.append(Self.greeting(row)) }
        return Page(fetched: fetched, limit: limit) { KeysetCursor.text(at: $0.createdAt, id: $0.id) }
    }

    /// Deletes `owner`'s greeting `id`; false when the owner has none by that id.
    public func delete(owner: UUID, id: UUID) async throws -> Bool {
        let rows = try await client.fetch(
            "DELETE FROM printing.saved_greetings WHERE id = \(id) AND owner_id = \(owner) RETURNING id",
            logger: logger)
        for try await _ in rows.decode(UUID.self) { return true }
        return false
    }

    /// Forgets every greeting `owner` saved (after `auth.account_deleted`).
    public func forget(_ owner: UUID, on connection: PostgresConnection) async throws {
        try await connection.fetch("DELETE FROM printing.saved_greetings WHERE owner_id = \(owner)", logger: logger)
    }

    /// ``forget(_:on:)`` in the consumer's transaction `tx`.
    public func forget(_ owner: UUID, in tx: Transaction) async throws {
        try await forget(owner, on: tx.connection)
    }

    private static func greeting(_ row: (UUID, String, String?, Date)) -> Printing.SavedGreeting {
        Printing.SavedGreeting(
            id: row.0.uuidString.lowercased(), text: row.1,
            occasion: row.2.flatMap(Printing.GreetingOccasion.init(rawValue:)), createdAt: row.3)
    }
}
