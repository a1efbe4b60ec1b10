import Contract
import Foundation
import OrdersContract
import PostgresNIO
import ServiceKit
import Store

extension OrderBook.DuePayment {
    /// What a refund of the order gives back: the total less what was refunded already.
    var rest: Money { Money(amount: total.amount - refunded, currency: total.currency) }
}

extension OrderBook {
    /// An order claimed for its outstanding payment work: a recovery (still `pending_payment`)
    /// or a ``PaymentStep``.
    struct DuePayment: Sendable {
        let orderId: UUID
        let userId: UUID
        let kind: String
        let state: OrderState
        let total: Money
        let content: Content
        let giftNotice: Orders.GiftReceived?
        let authorization: String?
        let captured: Bool
        let released: Bool
        /// Production started: the hold is to be captured (then refunded if the job failed).
        let captureOwed: Bool
        /// What was given back so far (refunds in the ledger, e.g. one made at the processor).
        let refunded: Int64
        let token: String
        /// The lease this claim holds (the order's `payment_due_at` while it works).
        let lease: Date
    }

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
        let lease = now.addingTimeInterval(payments.lease)
        let rows = try await client.fetch(
            """
            UPDATE orders.orders o SET payment_due_at = \(lease)
            FROM (SELECT id FROM orders.orders
                  WHERE payment_due_at <= \(now) AND (\(orderId)::uuid IS NULL OR id = \(orderId))
                  ORDER BY payment_due_at LIMIT 1 FOR UPDATE SKIP LOCKED) due
            WHERE o.id = due.id
            RETURNING o.id, o.user_id, o.kind, o.state, o.currency, o.total_amount, o.details::text,
                      o.gift_notice::text, o.authorization_id, o.captured, o.released, o.capture_owed,
                      (SELECT coalesce(-sum(l.amount), 0)::bigint FROM orders.ledger l
                       WHERE l.order_id = o.id AND l.movement = 'refund'),
                      (SELECT pm.token FROM orders.payment_methods pm WHERE pm.id = o.payment_method_id)
            """, logger: logger)
        typealias Row = (
            UUID, UUID, String, String, String, Int64, String, String?, String?, Bool, Bool, Bool, Int64, String?
        )
        let decoder = Wire.makeDecoder()
        for try await row in rows.decode(Row.self) {
            guard let state = OrderState(rawValue: row.3) else {
                throw ServiceError(.internal, "order \(row.0) has an unknown state \(row.3)")
            }
            return DuePayment(
                orderId: row.0, userId: row.1, kind: row.2, state: state, total: Money(amount: row.5, currency: row.4),
                content: try decoder.decode(Content.self, from: Data(row.6.utf8)),
                giftNotice: try row.7.map { try decoder.decode(Orders.GiftReceived.self, from: Data($0.utf8)) },
                authorization: row.8, captured: row.9, released: row.10, captureOwed: row.11, refunded: row.12,
                token: row.13 ?? "",
                lease: lease)
        }
        return nil
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
            try await client.fetch(
                """
                UPDATE orders.orders SET payment_due_at = NULL
                WHERE id = \(due.orderId) AND payment_due_at = \(due.lease)
                """, logger: logger)
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
        let stored = try await transaction { connection in
            try await self.record(step, reference: reference, for: due, on: connection)
        }
        for event in stored { events.announce(event) }
    }

    /// Writes a payment step the provider made: its ledger rows, the order's money flags (and
    /// `refunded` after a failure), and whether anything is still due.
    func record(_ step: PaymentStep, reference: String, for due: DuePayment, on connection: PostgresConnection)
        async throws -> [StoredEvent]
    {
        let rows = try await connection.fetch(
            "SELECT state, captured, released, capture_owed FROM orders.orders WHERE id = \(due.orderId) FOR UPDATE",
            logger: logger)
        var found: (String, Bool, Bool, Bool)?
        for try await row in rows.decode((String, Bool, Bool, Bool).self) { found = row }
        guard let (stateText, wasCaptured, wasReleased, owed) = found, let current = OrderState(rawValue: stateText)
        else {
            throw ServiceError(.internal, "order \(due.orderId) vanished while its payment step ran")
        }
        let amount = due.total.amount
        var (captured, released) = (wasCaptured, wasReleased)
        var movements: [Movement] = []
        var states: [(state: OrderState, reason: String?)] = []
        switch step {
        case .capture where !captured:
            movements.append(Movement(movement: "capture", account: "hold", amount: -amount, reference: reference))
            movements.append(Movement(movement: "capture", account: "charge", amount: amount, reference: reference))
            captured = true
        case .void where !released && !captured:
            movements.append(Movement(movement: "void", account: "hold", amount: -amount, reference: reference))
            released = true
        case .refund where !released && captured:
            movements.append(
                Movement(movement: "refund", account: "charge", amount: -due.rest.amount, reference: reference))
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
        try await connection.fetch(
            """
            UPDATE orders.orders
            SET state = \(state.rawValue), captured = \(captured), released = \(released), updated_at = \(now),
                payment_due_at = CASE WHEN \(more) THEN \(now) END
            WHERE id = \(due.orderId)
            """, logger: logger)
        if !states.isEmpty { try await recordStates(states, order: due.orderId, at: now, on: connection) }
        try await ledger(
            movements, order: due.orderId, user: due.userId, currency: due.total.currency, at: now, on: connection)
        var stored: [StoredEvent] = []
        var from = current
        for (state, reason) in states {
            let event = Orders.OrderEvent(
                orderId: due.orderId.uuidString.lowercased(), userId: due.userId.uuidString.lowercased(),
                kind: due.kind, from: from.rawValue, state: state.rawValue, at: now, reason: reason, total: due.total)
            stored.append(try await append(Orders.Topic.stateChanged, event, requestId: nil, on: connection))
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
        let stored = try await transaction { connection -> [StoredEvent] in
            let rows = try await connection.fetch(
                "SELECT state, captured, released FROM orders.orders WHERE id = \(due.orderId) FOR UPDATE",
                logger: self.logger)
            var found: (String, Bool, Bool)?
            for try await row in rows.decode((String, Bool, Bool).self) { found = row }
            guard let (stateText, captured, released) = found, !captured, !released,
                let current = OrderState(rawValue: stateText)
            else { return [] }
            let now = self.clock.now()
            let reason = "the payment could not be taken: \(declined.message)"
            let next: OrderState = current.canMove(to: .failed) ? .failed : current
            try await connection.fetch(
                """
                UPDATE orders.orders
                SET state = \(next.rawValue), released = true, payment_due_at = NULL, updated_at = \(now)
                WHERE id = \(due.orderId)
                """, logger: self.logger)
            try await self.ledger(
                [Movement(movement: "void", account: "hold", amount: -due.total.amount, reference: reference)],
                order: due.orderId, user: due.userId, currency: due.total.currency, at: now, on: connection)
            guard next != current else { return [] }
            try await self.recordStates([(next, reason)], order: due.orderId, at: now, on: connection)
            let event = Orders.OrderEvent(
                orderId: due.orderId.uuidString.lowercased(), userId: due.userId.uuidString.lowercased(),
                kind: due.kind, from: current.rawValue, state: next.rawValue, at: now, reason: reason, total: due.total)
            return [try await self.append(Orders.Topic.stateChanged, event, requestId: nil, on: connection)]
        }
        logger.warning(
            "the processor refused a capture; the hold is released and the order's payment ended",
            metadata: ["order": "\(due.orderId)", "reason": "\(declined.reason)"])
        for event in stored { events.announce(event) }
    }
}
