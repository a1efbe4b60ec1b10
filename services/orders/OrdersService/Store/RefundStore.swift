import CommonContract
import Contract
import Foundation
import Logging
import PostgresNIO
import Store

/// An operator's refund as it was asked.
struct StoredRefund: Sendable {
    let id: UUID
    let requestHash: String
    let amount: Int64
    /// `pending`, `done` or `failed`.
    let status: String
    let failure: String?
}

/// A pending refund with its order, locked for recording.
struct PendingRefund: Sendable {
    let userId: UUID
    let kind: String
    let state: String
    let total: Money
    let amount: Int64
    let status: String
    let reason: String?
    /// Refunded in the ledger so far.
    let refunded: Int64
}

/// A refund claimed by the sweeper: committed `pending`, its outcome never committed.
struct DueRefund: Sendable {
    let refund: UUID
    let orderId: UUID
    let authorization: String
    let amount: Money
    /// The provider key of the refund (`order-<id>-refund-<refund id>`).
    var key: String { PaymentStep.key("refund-\(refund.uuidString.lowercased())", order: orderId) }
}

/// Operators' refunds (`orders.refunds`): one per order and Idempotency-Key, `pending` until
/// the processor's answer is recorded (`done`) or it refused (`failed`).
public struct RefundStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// A store on `client`.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The refund of `orderId` asked with `key`, if any.
    func find(order orderId: UUID, key: String, in tx: Transaction) async throws -> StoredRefund? {
        let rows = try await tx.connection.fetch(
            """
            SELECT id, request_hash, amount, status, failure FROM orders.refunds
            WHERE order_id = \(orderId) AND idempotency_key = \(key)
            """, logger: tx.logger)
        var previous: StoredRefund?
        for try await (id, hash, amount, status, failure) in rows.decode((UUID, String, Int64, String, String?).self) {
            previous = StoredRefund(id: id, requestHash: hash, amount: amount, status: status, failure: failure)
        }
        return previous
    }

    /// Records a new `pending` refund, due for the sweeper at `due`.
    func insert(
        _ id: UUID, order orderId: UUID, key: String, hash: String, amount: Int64, reason: String?, admin: UUID,
        now: Date, due: Date, in tx: Transaction
    ) async throws {
        try await tx.connection.fetch(
            """
            INSERT INTO orders.refunds
                (id, order_id, idempotency_key, request_hash, amount, reason, admin_id, status, created_at,
                 due_at)
            VALUES (\(id), \(orderId), \(key), \(hash), \(amount), \(reason), \(admin), 'pending',
                    \(now), \(due))
            """, logger: tx.logger)
    }

    /// The refund with its order, both rows locked.
    func lock(_ refund: UUID, order orderId: UUID, in tx: Transaction) async throws -> PendingRefund? {
        let rows = try await tx.connection.fetch(
            """
            SELECT o.user_id, o.kind, o.state, o.currency, o.total_amount, r.amount, r.status, r.reason,
                   (SELECT coalesce(-sum(l.amount), 0)::bigint FROM orders.ledger l
                    WHERE l.order_id = o.id AND l.movement = 'refund')
            FROM orders.orders o JOIN orders.refunds r ON r.order_id = o.id
            WHERE o.id = \(orderId) AND r.id = \(refund) FOR UPDATE
            """, logger: tx.logger)
        var found: PendingRefund?
        for try await (user, kind, state, currency, total, amount, status, reason, refunded) in rows.decode(
            (UUID, String, String, String, Int64, Int64, String, String?, Int64).self)
        {
            found = PendingRefund(
                userId: user, kind: kind, state: state, total: Money(amount: total, currency: currency),
                amount: amount, status: status, reason: reason, refunded: refunded)
        }
        return found
    }

    /// Marks the refund done, with the processor's id of it.
    func markDone(_ refund: UUID, reference: String, in tx: Transaction) async throws {
        try await tx.connection.fetch(
            "UPDATE orders.refunds SET status = 'done', provider_ref = \(reference), due_at = NULL WHERE id = \(refund)",
            logger: tx.logger)
    }

    /// Ends a pending refund the processor refused: `failed` with its message.
    func markFailed(_ refund: UUID, failure: String) async throws {
        try await client.fetch(
            """
            UPDATE orders.refunds SET status = 'failed', failure = \(failure), due_at = NULL
            WHERE id = \(refund) AND status = 'pending'
            """, logger: logger)
    }

    /// The refund's amount, the order's state and all refunded of it so far.
    func outcome(_ refund: UUID) async throws -> (amount: Money, state: String, refunded: Money)? {
        let rows = try await client.fetch(
            """
            SELECT r.amount, o.currency, o.state,
                   (SELECT coalesce(-sum(l.amount), 0)::bigint FROM orders.ledger l
                    WHERE l.order_id = o.id AND l.movement = 'refund')
            FROM orders.refunds r JOIN orders.orders o ON o.id = r.order_id WHERE r.id = \(refund)
            """, logger: logger)
        for try await (amount, currency, state, refunded) in rows.decode((Int64, String, String, Int64).self) {
            return (Money(amount: amount, currency: currency), state, Money(amount: refunded, currency: currency))
        }
        return nil
    }

    /// Claims the most overdue pending refund until `lease`, in a statement that commits at once.
    func claimDue(now: Date, lease: Date) async throws -> DueRefund? {
        let rows = try await client.fetch(
            """
            UPDATE orders.refunds r SET due_at = \(lease)
            FROM (SELECT id FROM orders.refunds WHERE status = 'pending' AND due_at <= \(now)
                  ORDER BY due_at LIMIT 1 FOR UPDATE SKIP LOCKED) due, orders.orders o
            WHERE r.id = due.id AND o.id = r.order_id
            RETURNING r.id, r.order_id, o.authorization_id, r.amount, o.currency
            """, logger: logger)
        for try await (id, order, authorization, amount, currency) in rows.decode(
            (UUID, UUID, String?, Int64, String).self)
        {
            return DueRefund(
                refund: id, orderId: order, authorization: authorization ?? "",
                amount: Money(amount: amount, currency: currency))
        }
        return nil
    }
}
