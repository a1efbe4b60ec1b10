import Foundation
import PostgresNIO
import Store

/// The append-only ledger (`orders.ledger`): every money movement of an order, two accounts
/// (`hold`, `charge`); an order's rows sum to what its buyer is out of pocket.
public struct LedgerStore: Sendable {
    /// The store; it writes only inside a caller's transaction.
    public init() {}

    /// Appends `movements` of one order, made at `provider`, in one statement.
    func append(
        _ movements: [LedgerMovement], order: UUID, user: UUID, currency: String, provider: String, at now: Date,
        in tx: Transaction
    ) async throws {
        guard !movements.isEmpty else { return }
        try await tx.connection.fetch(
            """
            INSERT INTO orders.ledger
                (order_id, user_id, movement, account, amount, currency, provider, provider_ref, created_at)
            SELECT \(order), \(user), m.movement, m.account, m.amount, \(currency), \(provider), m.reference, \(now)
            FROM unnest(\(movements.map(\.movement))::text[], \(movements.map(\.account))::text[],
                        \(movements.map(\.amount))::bigint[], \(movements.map(\.reference))::text[])
                 WITH ORDINALITY AS m(movement, account, amount, reference, position)
            ORDER BY m.position
            """, logger: tx.logger)
    }
}
