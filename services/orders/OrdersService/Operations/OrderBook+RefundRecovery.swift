import Contract
import Foundation
import PostgresNIO
import ServiceKit
import Store

extension OrderBook {
    /// A refund claimed by the sweeper: committed `pending`, its outcome never committed.
    struct DueRefund: Sendable {
        let refund: UUID
        let orderId: UUID
        let authorization: String
        let amount: Money
        /// The provider key of the refund (`order-<id>-refund-<refund id>`).
        var key: String { PaymentStep.key("refund-\(refund.uuidString.lowercased())", order: orderId) }
    }

    /// The refund sweeper, one round: claims refunds left `pending` past their `due_at` (the
    /// admin's call timed out, or the process died between the provider call and the commit),
    /// one at a time (each claim commits on its own, `SKIP LOCKED`, a lease of
    /// ``PaymentTiming/lease``) and, with no transaction open, asks the provider what it did for
    /// the refund's key: done → the ledger row and `orders.refunded` commit as the admin's call
    /// would have; refused → the refund is `failed` (its amount free again); never received →
    /// the refund is made now with the same key (the admin asked for it), which a provider that
    /// did receive it answers with its first result. A provider that does not answer leaves the
    /// claim to expire. Returns how many refunds it took (at most `limit`).
    @discardableResult
    public func sweepRefunds(limit: Int = 100) async throws -> Int {
        var handled = 0
        while handled < limit, let due = try await claimDueRefund() {
            try await recover(due)
            handled += 1
        }
        return handled
    }

    /// Claims the most overdue pending refund for ``PaymentTiming/lease``, in a statement that
    /// commits at once.
    func claimDueRefund() async throws -> DueRefund? {
        let now = clock.now()
        let rows = try await client.fetch(
            """
            UPDATE orders.refunds r SET due_at = \(now.addingTimeInterval(payments.lease))
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

    /// Finishes one claimed refund (see ``sweepRefunds(limit:)``).
    func recover(_ due: DueRefund) async throws {
        let reference: String
        do {
            switch try await provider.refundOutcome(authorization: due.authorization, idempotencyKey: due.key) {
            case .succeeded(let made)?:
                reference = made
            case .declined(let declined)?:
                try await refundRefused(due.refund, declined)
                return
            case nil:
                reference = try await provider.refund(
                    authorization: due.authorization, amount: due.amount, idempotencyKey: due.key)
            }
        } catch let declined as PaymentDeclined {
            try await refundRefused(due.refund, declined)
            return
        } catch {
            logger.warning(
                "a pending refund could not be finished; it is tried again after the lease",
                metadata: ["order": "\(due.orderId)", "error": "\(SafeErrorDescription.of(error))"])
            return
        }
        let stored = try await transaction { connection in
            try await self.recordRefund(due.refund, of: due.orderId, reference: reference, on: connection)
        }
        if !stored.isEmpty {
            logger.notice("a refund left pending was finished", metadata: ["order": "\(due.orderId)"])
        }
        for event in stored { events.announce(event) }
    }

    /// Ends a pending refund the processor refused: `failed` with its reason, nothing in the
    /// ledger, its amount no longer counted as in flight.
    func refundRefused(_ refund: UUID, _ declined: PaymentDeclined) async throws {
        try await client.fetch(
            """
            UPDATE orders.refunds SET status = 'failed', failure = \(declined.message), due_at = NULL
            WHERE id = \(refund) AND status = 'pending'
            """, logger: logger)
        logger.warning(
            "the processor refused a refund", metadata: ["refund": "\(refund)", "reason": "\(declined.reason)"])
    }
}
