import Contract
import Foundation
import OrdersContract
import ServiceKit
import Store

extension PaymentHandler {
    /// The recovery sweeper and settler, one round: claims due orders one at a time (each
    /// claim commits on its own, `SKIP LOCKED`, so replicas share the work) and, with no
    /// transaction open, asks the provider what an order left `pending_payment` came to and
    /// finishes or releases it, or makes the capture, void or refund an order's state calls
    /// for; then commits the outcome. Returns how many orders it took (at most `limit`).
    @discardableResult
    public func sweepPayments(limit: Int = 100) async throws -> Int {
        var handled = 0
        while handled < limit, let due = try await claimDue(nil) {
            try await work(due)
            handled += 1
        }
        return handled
    }

    /// Does `orderId`'s due payment step now, if it has one and no one else holds it.
    func settle(_ orderId: UUID) async throws {
        while let due = try await claimDue(orderId) { try await work(due) }
    }

    /// Claims the most overdue order (or `orderId`, if due) for ``PaymentTiming/lease``, in a
    /// statement that commits at once.
    func claimDue(_ orderId: UUID?) async throws -> DuePayment? {
        let now = clock.now()
        return try await orders.claimDue(orderId, now: now, lease: now.addingTimeInterval(timing.lease))
    }

    /// Recovers or settles one claimed order. A provider that does not answer leaves the claim
    /// to expire, so the order is tried again after the lease; a capture it refuses for good
    /// ends the order's money instead (``captureRefused(_:authorization:_:)``).
    func work(_ due: DuePayment) async throws {
        if due.state == .pendingPayment {
            let payment = PendingPayment(
                orderId: due.orderId, userId: due.userId, kind: due.kind, token: due.token, total: due.total,
                content: due.content, giftNotice: due.giftNotice)
            let charged = await charge(payment, recovering: true)
            if let (_, stored) = try await finish(payment, charged, requestId: nil) {
                logger.notice("a payment left between phases was recovered", metadata: ["order": "\(due.orderId)"])
                for event in stored { events.announce(event) }
            }
            return
        }
        guard
            let step = PaymentStep.due(
                state: due.state, authorized: due.authorization != nil, captured: due.captured,
                released: due.released, captureOwed: due.captureOwed),
            let authorization = due.authorization
        else {
            try await orders.clearDue(due.orderId, lease: due.lease)
            return
        }
        let key = PaymentStep.key(step.rawValue, order: due.orderId)
        let reference: String
        do {
            switch step {
            case .capture:
                reference = try await provider.capture(
                    authorization: authorization, amount: due.total, idempotencyKey: key)
            case .void:
                reference = try await provider.void(authorization: authorization, idempotencyKey: key)
            case .refund:
                reference = try await provider.refund(
                    authorization: authorization, amount: due.rest, idempotencyKey: key)
            }
        } catch let declined as PaymentDeclined where step == .capture {
            try await captureRefused(due, authorization: authorization, declined)
            return
        } catch {
            logger.error(
                "a payment step failed; it is tried again after the lease",
                metadata: [
                    "order": "\(due.orderId)", "step": "\(step.rawValue)", "error": "\(SafeErrorDescription.of(error))",
                ])
            return
        }
        let stored = try await transactions.run { tx in
            try await self.record(step, reference: reference, for: due, in: tx)
        }
        for event in stored { events.announce(event) }
    }

    /// Writes a payment step the provider made: its ledger rows, the order's money flags (and
    /// `refunded` after a failure), and whether anything is still due.
    func record(_ step: PaymentStep, reference: String, for due: DuePayment, in tx: Transaction) async throws
        -> [StoredEvent]
    {
        guard let found = try await orders.lock(due.orderId, in: tx), let current = OrderState(rawValue: found.state)
        else {
            throw ServiceError(.internal, "order \(due.orderId) vanished while its payment step ran")
        }
        let (wasCaptured, wasReleased, owed) = (found.captured, found.released, found.captureOwed)
        let amount = due.total.amount
        var (captured, released) = (wasCaptured, wasReleased)
        var movements: [LedgerMovement] = []
        var states: [(state: OrderState, reason: String?)] = []
        switch step {
        case .capture where !captured:
            movements.append(
                LedgerMovement(movement: "capture", account: "hold", amount: -amount, reference: reference))
            movements.append(
                LedgerMovement(movement: "capture", account: "charge", amount: amount, reference: reference))
            captured = true
        case .void where !released && !captured:
            movements.append(LedgerMovement(movement: "void", account: "hold", amount: -amount, reference: reference))
            released = true
        case .refund where !released && captured:
            movements.append(
                LedgerMovement(movement: "refund", account: "charge", amount: -due.rest.amount, reference: reference))
            released = true
            if current == .failed { states.append((.refunded, "the payment was refunded")) }
        default:
            break
        }
        let now = clock.now()
        let state = states.last?.state ?? current
        let more =
            PaymentStep.due(state: state, authorized: true, captured: captured, released: released, captureOwed: owed)
            != nil
        try await orders.recordStep(
            due.orderId, state: state, captured: captured, released: released, more: more, now: now, in: tx)
        if !states.isEmpty { try await orders.recordStates(states, order: due.orderId, at: now, in: tx) }
        try await ledger.append(
            movements, order: due.orderId, user: due.userId, currency: due.total.currency, provider: provider.name,
            at: now, in: tx)
        var stored: [StoredEvent] = []
        var from = current
        for (state, reason) in states {
            let event = Orders.OrderEvent(
                orderId: due.orderId.uuidString.lowercased(), userId: due.userId.uuidString.lowercased(),
                kind: due.kind, from: from.rawValue, state: state.rawValue, at: now, reason: reason, total: due.total)
            stored.append(
                try await events.append(topic: Orders.Topic.stateChanged, payload: event, requestId: nil, in: tx))
            from = state
        }
        return stored
    }

    /// A capture the provider refused for good (an authorization expired or canceled at the
    /// processor): not retried. The hold is voided (a void the provider also refuses means
    /// nothing is held any more), then in one transaction the ledger's `void hold −x`, the
    /// order `released`, and an order still being made or printed `failed` with the reason
    /// (a mailed or already failed order keeps its state). A void that gets no answer leaves
    /// the claim to expire: the next round asks the capture again (the same key, the same
    /// refusal) and voids again.
    func captureRefused(_ due: DuePayment, authorization: String, _ declined: PaymentDeclined) async throws {
        let reference: String
        do {
            reference = try await provider.void(
                authorization: authorization,
                idempotencyKey: PaymentStep.key(PaymentStep.void.rawValue, order: due.orderId))
        } catch is PaymentDeclined {
            reference = "capture_refused"
        } catch {
            logger.error(
                "a refused capture's hold could not be voided yet; tried again after the lease",
                metadata: ["order": "\(due.orderId)", "error": "\(SafeErrorDescription.of(error))"])
            return
        }
        let stored = try await transactions.run { tx -> [StoredEvent] in
            guard let found = try await self.orders.lock(due.orderId, in: tx), !found.captured, !found.released,
                let current = OrderState(rawValue: found.state)
            else { return [] }
            let now = self.clock.now()
            let reason = "the payment could not be taken: \(declined.message)"
            let next: OrderState = current.canMove(to: .failed) ? .failed : current
            try await self.orders.releaseRefusedCapture(due.orderId, state: next, now: now, in: tx)
            try await self.ledger.append(
                [LedgerMovement(movement: "void", account: "hold", amount: -due.total.amount, reference: reference)],
                order: due.orderId, user: due.userId, currency: due.total.currency, provider: self.provider.name,
                at: now, in: tx)
            guard next != current else { return [] }
            try await self.orders.recordStates([(next, reason)], order: due.orderId, at: now, in: tx)
            let event = Orders.OrderEvent(
                orderId: due.orderId.uuidString.lowercased(), userId: due.userId.uuidString.lowercased(),
                kind: due.kind, from: current.rawValue, state: next.rawValue, at: now, reason: reason, total: due.total)
            return [
                try await self.events.append(topic: Orders.Topic.stateChanged, payload: event, requestId: nil, in: tx)
            ]
        }
        logger.warning(
            "the processor refused a capture; the hold is released and the order's payment ended",
            metadata: ["order": "\(due.orderId)", "reason": "\(declined.reason)"])
        for event in stored { events.announce(event) }
    }
}
