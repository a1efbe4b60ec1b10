import Contract
import Foundation
import OrdersContract
import PostgresNIO
import Store

extension OrderBook {
    /// Cancels the caller's order if production has not started (422 otherwise; 409
    /// `payment_in_progress` while its payment runs): the hold is voided, or a captured payment
    /// refunded, after the cancellation commits.
    public func cancel(_ id: String, actor: Actor, requestId: String) async throws -> Orders.OrderDetail {
        let userId = try Self.userId(actor)
        guard let orderId = UUID(uuidString: id) else { throw ServiceError.notFound("no such order") }
        let stored = try await transaction { connection in
            try await self.move(
                orderId, to: .canceled, reason: "canceled by the customer", owner: userId, requestId: requestId,
                on: connection)
        }
        for event in stored { events.announce(event) }
        try await settle(orderId)
        return try await detail(id, actor: actor)
    }

    /// Applies one of printing's job events, inside the consumer's transaction; the capture,
    /// void or refund the move calls for is left to the settler (``sweepPayments()``), which
    /// runs after that transaction has committed. Events that no
    /// longer apply (a duplicate, a job for a canceled order) are logged and skipped, so that
    /// one odd event never blocks the events behind it.
    public func apply(printing event: StoredEvent, on connection: PostgresConnection) async throws {
        let job = try Wire.makeDecoder().decode(Orders.PrintingJobEvent.self, from: event.payload)
        if event.topic == Orders.PrintingTopic.ecardReady {
            // The rendered e-card's link, for a phone that sends the card itself; the state stays.
            guard let orderId = UUID(uuidString: job.orderId), let imageUrl = job.imageUrl else { return }
            try await connection.fetch(
                "UPDATE orders.orders SET ecard_image_url = \(imageUrl) WHERE id = \(orderId) AND kind = 'ecard'",
                logger: logger)
            return
        }
        let target: OrderState
        switch event.topic {
        case Orders.PrintingTopic.jobAccepted: target = .inProduction
        case Orders.PrintingTopic.jobPrinted: target = .printed
        case Orders.PrintingTopic.jobMailed: target = .mailed
        case Orders.PrintingTopic.jobFailed, Orders.PrintingTopic.ecardFailed: target = .failed
        default: return
        }
        guard let orderId = UUID(uuidString: job.orderId) else {
            logger.warning("printing event for a malformed order id skipped", metadata: ["event": "\(event.id)"])
            return
        }
        do {
            let stored = try await move(
                orderId, to: target, reason: job.reason, owner: nil, requestId: event.requestId, on: connection)
            for event in stored { events.announce(event) }
        } catch let error as ServiceError where error.code == .failedPrecondition || error.code == .notFound {
            logger.warning(
                "printing event does not apply to the order; skipped",
                metadata: ["event": "\(event.id)", "topic": "\(event.topic)", "order": "\(orderId)", "why": "\(error)"])
        }
    }

    /// Moves an order to `target`, records the state and appends the events; when the move calls
    /// for a money movement (``PaymentStep``) the order is marked due for the settler, which
    /// moves the money after this transaction commits. `owner` (when given) must own the order,
    /// else `not_found`.
    func move(
        _ orderId: UUID, to target: OrderState, reason: String?, owner: UUID?, requestId: String?,
        on connection: PostgresConnection
    ) async throws -> [StoredEvent] {
        let rows = try await connection.fetch(
            """
            SELECT user_id, kind, state, currency, total_amount, authorization_id, captured, released, capture_owed
            FROM orders.orders WHERE id = \(orderId) FOR UPDATE
            """, logger: logger)
        var found: (UUID, String, String, String, Int64, String?, Bool, Bool, Bool)?
        for try await row in rows.decode((UUID, String, String, String, Int64, String?, Bool, Bool, Bool).self) {
            found = row
        }
        guard let (userId, kind, stateText, currency, amount, authorization, captured, released, owed) = found,
            owner == nil || owner == userId
        else { throw ServiceError.notFound("no such order") }
        guard let current = OrderState(rawValue: stateText) else {
            throw ServiceError(.internal, "order \(orderId) has an unknown state \(stateText)")
        }
        if current == target { return [] }
        if current == .pendingPayment { throw inProgress(retryAfter: 2) }
        _ = try current.move(to: target)

        let now = clock.now()
        let captureOwed = owed || target == .inProduction
        let due =
            PaymentStep.due(
                state: target, authorized: authorization != nil, captured: captured, released: released,
                captureOwed: captureOwed) != nil
        // A step already claimed (due in the future: its lease) keeps its lease; the settler
        // that holds it looks again at what is due when it commits.
        try await connection.fetch(
            """
            UPDATE orders.orders SET state = \(target.rawValue), updated_at = \(now), capture_owed = \(captureOwed),
                payment_due_at = CASE WHEN \(due) THEN greatest(coalesce(payment_due_at, \(now)), \(now))
                                      ELSE payment_due_at END
            WHERE id = \(orderId)
            """, logger: logger)
        try await recordStates([(target, reason)], order: orderId, at: now, on: connection)
        let event = Orders.OrderEvent(
            orderId: orderId.uuidString.lowercased(), userId: userId.uuidString.lowercased(), kind: kind,
            from: current.rawValue, state: target.rawValue, at: now, reason: reason,
            total: Money(amount: amount, currency: currency))
        var stored: [StoredEvent] = []
        if target == .canceled {
            stored.append(try await append(Orders.Topic.canceled, event, requestId: requestId, on: connection))
        }
        stored.append(try await append(Orders.Topic.stateChanged, event, requestId: requestId, on: connection))
        return stored
    }
}
