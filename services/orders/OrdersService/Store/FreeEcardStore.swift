import Foundation
import PostgresNIO
import Store

/// The free e-cards an account sent (`orders.orders`, kind `ecard`, total 0), counted by
/// recipient for ``FreeEcardAllowance``.
struct FreeEcardStore: Sendable {
    /// Recipients of the free e-cards `userId` placed in `[from, to)`, read inside the caller's
    /// transaction after taking the account's free e-card lock (held until that transaction
    /// ends): two orders of one account placed at once are counted one after the other, so
    /// together they cannot pass the cap. The lock comes first, in its own statement, so the
    /// count's snapshot is taken after the other order committed.
    func recipientsSent(userId: UUID, from: Date, to: Date, in tx: Transaction) async throws -> Int {
        try await tx.connection.fetch(
            "SELECT pg_advisory_xact_lock(hashtext('orders.free_ecards'), hashtext(\(userId.uuidString.lowercased())))",
            logger: tx.logger)
        let rows = try await tx.connection.fetch(
            """
            SELECT coalesce(sum(jsonb_array_length(details->'ecard'->'recipients')), 0)::bigint
            FROM orders.orders
            WHERE user_id = \(userId) AND kind = 'ecard' AND total_amount = 0
              AND created_at >= \(from) AND created_at < \(to)
            """, logger: tx.logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }
}
