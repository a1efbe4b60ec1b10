import Contract
import Foundation
import OrdersContract
import PostgresNIO
import Store

extension OrderBook {
    /// Cancels the caller's order if production has not started (422 otherwise): the hold is
    /// voided, or a captured payment refunded.
    public func cancel(_ id: String, actor: Actor, requestId: String) async throws -> Orders.OrderDetail {
        let userId = try Self.userId(actor)
        guard let orderId = UUID(uuidString: id) else { throw ServiceError.notFound("no such order") }
        let stored = try await transaction { connection in
            try await self.move(
                orderId, to: .canceled, reason: "canceled by the customer", owner: userId, requestId: requestId,
                on: connection)
        }
        for event in stored { events.announce(event) }
        return try await detail(id, actor: actor)
    }

    /// Applies one of printing's job events, inside the consumer's transaction. Events that no
    /// longer apply (a duplicate, a job for a canceled order) are logged and skipped, so that
    /// one odd event never blocks the events behind it.
    public func apply(printing event: StoredEvent, on connection: PostgresConnection) async throws {
        let job = try Wire.makeDecoder().decode(Orders.PrintingJobEvent.self, from: event.payload)
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

    /// Moves an order to `target` with the money movement the move implies, records the state
    /// (and `refunded` after a failure that gave captured money back) and appends the events.
    /// `owner` (when given) must own the order, else `not_found`.
    func move(
        _ orderId: UUID, to target: OrderState, reason: String?, owner: UUID?, requestId: String?,
        on connection: PostgresConnection
    ) async throws -> [StoredEvent] {
        let rows = try await connection.query(
            """
            SELECT user_id, kind, state, currency, total_amount, authorization_id, captured
            FROM orders.orders WHERE id = \(orderId) FOR UPDATE
            """, logger: logger)
        var found: (UUID, String, String, String, Int64, String?, Bool)?
        for try await row in rows.decode((UUID, String, String, String, Int64, String?, Bool).self) { found = row }
        guard let (userId, kind, stateText, currency, amount, authorization, wasCaptured) = found,
            owner == nil || owner == userId
        else { throw ServiceError.notFound("no such order") }
        guard let current = OrderState(rawValue: stateText) else {
            throw ServiceError(.internal, "order \(orderId) has an unknown state \(stateText)")
        }
        if current == target { return [] }
        _ = try current.move(to: target)

        let now = clock.now()
        var states: [(state: OrderState, reason: String?)] = [(target, reason)]
        var captured = wasCaptured
        var movements: [Movement] = []
        let total = Money(amount: amount, currency: currency)
        switch target {
        case .inProduction where !captured:
            if let authorization {
                let capture = try await provider.capture(
                    authorization: authorization, amount: total, idempotencyKey: "capture:\(orderId)")
                movements.append(Movement(movement: "capture", account: "hold", amount: -amount, reference: capture))
                movements.append(Movement(movement: "capture", account: "charge", amount: amount, reference: capture))
                captured = true
            }
        case .failed, .canceled:
            if let authorization, captured {
                let refund = try await provider.refund(
                    authorization: authorization, amount: total, idempotencyKey: "refund:\(orderId)")
                movements.append(Movement(movement: "refund", account: "charge", amount: -amount, reference: refund))
                if target == .failed { states.append((.refunded, "the payment was refunded")) }
            } else if let authorization {
                let void = try await provider.void(authorization: authorization, idempotencyKey: "void:\(orderId)")
                movements.append(Movement(movement: "void", account: "hold", amount: -amount, reference: void))
            }
        default: break
        }
        try await connection.query(
            """
            UPDATE orders.orders SET state = \(states.last!.state.rawValue), captured = \(captured), updated_at = \(now)
            WHERE id = \(orderId)
            """, logger: logger)
        try await recordStates(states, order: orderId, at: now, on: connection)
        try await ledger(movements, order: orderId, user: userId, currency: currency, at: now, on: connection)

        var stored: [StoredEvent] = []
        var from = current
        for (state, reason) in states {
            let event = Orders.OrderEvent(
                orderId: orderId.uuidString.lowercased(), userId: userId.uuidString.lowercased(), kind: kind,
                from: from.rawValue, state: state.rawValue, at: now, reason: reason, total: total)
            if state == .canceled {
                stored.append(try await append(Orders.Topic.canceled, event, requestId: requestId, on: connection))
            }
            stored.append(try await append(Orders.Topic.stateChanged, event, requestId: requestId, on: connection))
            from = state
        }
        return stored
    }
}
