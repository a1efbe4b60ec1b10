import Contract
import Foundation
import OrdersContract
import ServiceKit
import Store

extension RefundHandler {
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
        return try await refunds.claimDue(now: now, lease: now.addingTimeInterval(timing.lease))
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
        let stored = try await transactions.run { tx in
            try await self.recordRefund(due.refund, of: due.orderId, reference: reference, in: tx)
        }
        if !stored.isEmpty {
            logger.notice("a refund left pending was finished", metadata: ["order": "\(due.orderId)"])
        }
        for event in stored { events.announce(event) }
    }

    /// Ends a pending refund the processor refused: `failed` with its reason, nothing in the
    /// ledger, its amount no longer counted as in flight.
    func refundRefused(_ refund: UUID, _ declined: PaymentDeclined) async throws {
        try await refunds.markFailed(refund, failure: declined.message)
        logger.warning(
            "the processor refused a refund", metadata: ["refund": "\(refund)", "reason": "\(declined.reason)"])
    }
}
