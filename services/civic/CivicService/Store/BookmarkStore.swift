import CivicContract
import Contract
import Foundation
import Logging
import PostgresNIO
import Store

/// The `civic.bookmarks` table: each account's bookmarked bills (the only per-account data civic keeps).
public struct BookmarkStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Bookmarks `bill` for `user` at `now`; nil when there is no such bill; `created` false
    /// when it was bookmarked already (then with its first time).
    func put(_ bill: UUID, for user: UUID, now: Date) async throws -> (createdAt: Date, created: Bool)? {
        let rows = try await client.fetch(
            """
            WITH inserted AS (
                INSERT INTO civic.bookmarks (user_id, bill_id, created_at)
                SELECT \(user), id, \(now) FROM civic.bills WHERE id = \(bill)
                ON CONFLICT (user_id, bill_id) DO NOTHING RETURNING created_at)
            SELECT created_at, true FROM inserted
            UNION ALL
            SELECT created_at, false FROM civic.bookmarks WHERE user_id = \(user) AND bill_id = \(bill)
            """, logger: logger)
        for try await (createdAt, created) in rows.decode((Date, Bool).self) { return (createdAt, created) }
        return nil
    }

    /// The bookmark of `bill` by `user` with the bill's summary, or nil.
    func get(_ bill: UUID, for user: UUID) async throws -> Civic.Bookmark? {
        try await list(for: user, only: bill, after: nil, limit: 1).first?.bookmark
    }

    /// True when a bookmark was removed.
    func delete(_ bill: UUID, for user: UUID) async throws -> Bool {
        let rows = try await client.fetch(
            "DELETE FROM civic.bookmarks WHERE user_id = \(user) AND bill_id = \(bill) RETURNING bill_id",
            logger: logger)
        for try await _ in rows.decode(UUID.self) { return true }
        return false
    }

    /// Newest first, after `cursor`, `limit + 1` of them.
    func list(for user: UUID, only bill: UUID? = nil, after cursor: KeysetCursor?, limit: Int) async throws
        -> [(bookmark: Civic.Bookmark, createdAt: Date)]
    {
        let rows = try await client.fetch(
            """
            SELECT \(unescaped: BillStore.summaryColumns), k.created_at
            FROM civic.bookmarks k JOIN civic.bills b ON b.id = k.bill_id
            JOIN civic.jurisdictions j ON j.id = b.jurisdiction_id
            WHERE k.user_id = \(user) AND (\(bill)::uuid IS NULL OR k.bill_id = \(bill))
              AND (\(cursor?.micros)::bigint IS NULL
                   OR (k.created_at, k.bill_id)
                      < ('epoch'::timestamptz + \(cursor?.micros)::bigint * interval '1 microsecond', \(cursor?.id)::uuid))
            ORDER BY k.created_at DESC, k.bill_id DESC LIMIT \(limit + 1)
            """, logger: logger)
        var items: [(Civic.Bookmark, Date)] = []
        for try await row in rows.decode(
            (
                UUID, String, String, String, String, String, String, String?, [String], String, String?, String?,
                String?, Date, Date, Date, Date
            ).self)
        {
            let listed = BillStore.listed(
                (row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8, row.9, row.10, row.11, row.12, row.13,
                    row.14, row.15))
            items.append(
                (.init(billId: listed.summary.id, createdAt: FeedDate.text(row.16), bill: listed.summary), row.16))
        }
        return items
    }

    /// Forgets `user`'s bookmarks (after `auth.account_deleted`).
    public func forget(_ user: UUID, in tx: Transaction) async throws {
        try await tx.connection.fetch("DELETE FROM civic.bookmarks WHERE user_id = \(user)", logger: logger)
    }
}
