import Contract
import Crypto
import Foundation
import NotifyContract
import OrdersContract
import PostgresNIO
import ServiceKit
import Store

extension OrderBook {
    /// Refunds part or all of an order's captured payment for an admin, once per order and
    /// Idempotency-Key, in phases: the refund is committed as pending (the amount checked
    /// against what is left), the provider is called with no transaction open (key
    /// `order-<id>-refund-<refund id>`), then the ledger row (and `released`, and `refunded`
    /// after a failure, once all is back) and `orders.refunded` commit. A repeat with the key
    /// and the same body answers the same refund (finishing it first if its provider call never
    /// answered; the payment sweeper finishes it too, ``sweepRefunds(limit:)``); with another
    /// body a 409. 422 when nothing captured is left to refund, or when the processor refused it
    /// (the refund is then `failed`, and its amount free again).
    public func refund(_ request: Orders.RefundOrder.Request, idempotencyKey key: String, actor: Actor) async throws
        -> Orders.RefundOrder.Reply
    {
        let admin = try Self.userId(actor)
        guard let orderId = UUID(uuidString: request.id) else { throw ServiceError.notFound("no such order") }
        if let amount = request.amount, amount < 1 {
            throw ServiceError.invalidArgument("amount is at least 1 (minor units)", field: "amount")
        }
        if let reason = request.reason, reason.count > 200 {
            throw ServiceError.invalidArgument("reason is at most 200 characters", field: "reason")
        }
        let hash = SHA256.hash(data: try Wire.makeEncoder().encode(request)).lowercaseHex
        typealias Pending = (refund: UUID, amount: Money, authorization: String, done: Bool)
        let pending = try await transaction { connection -> Pending in
            let rows = try await connection.fetch(
                """
                SELECT o.authorization_id, o.captured, o.total_amount, o.currency,
                       (SELECT coalesce(-sum(l.amount), 0)::bigint FROM orders.ledger l
                        WHERE l.order_id = o.id AND l.movement = 'refund'),
                       (SELECT coalesce(sum(r.amount), 0)::bigint FROM orders.refunds r
                        WHERE r.order_id = o.id AND r.status = 'pending')
                FROM orders.orders o WHERE o.id = \(orderId) FOR UPDATE
                """, logger: self.logger)
            var found: (String?, Bool, Int64, String, Int64, Int64)?
            for try await row in rows.decode((String?, Bool, Int64, String, Int64, Int64).self) { found = row }
            guard let (authorization, captured, total, currency, refunded, inFlight) = found else {
                throw ServiceError.notFound("no such order")
            }
            let earlier = try await connection.fetch(
                """
                SELECT id, request_hash, amount, status, failure FROM orders.refunds
                WHERE order_id = \(orderId) AND idempotency_key = \(key)
                """, logger: self.logger)
            var previous: (UUID, String, Int64, String, String?)?
            for try await row in earlier.decode((UUID, String, Int64, String, String?).self) { previous = row }
            if let (id, storedHash, amount, status, failure) = previous {
                guard storedHash == hash else {
                    throw ServiceError(
                        .conflict, "this Idempotency-Key was used with a different refund; use a new key",
                        details: ["field": "Idempotency-Key"])
                }
                guard status != "failed" else {
                    throw ServiceError(
                        .failedPrecondition, "the processor refused this refund: \(failure ?? "no reason given")")
                }
                return (id, Money(amount: amount, currency: currency), authorization ?? "", status == "done")
            }
            guard let authorization, captured else {
                throw ServiceError(.failedPrecondition, "the order has no captured payment to refund")
            }
            let left = total - refunded - inFlight
            let amount = request.amount ?? left
            guard left > 0, amount <= left else {
                throw ServiceError(
                    .failedPrecondition, "at most \(max(left, 0)) (minor units) is left to refund",
                    details: ["field": "amount", "left": .number(Double(max(left, 0)))])
            }
            let id = UUID()
            try await connection.fetch(
                """
                INSERT INTO orders.refunds
                    (id, order_id, idempotency_key, request_hash, amount, reason, admin_id, status, created_at,
                     due_at)
                VALUES (\(id), \(orderId), \(key), \(hash), \(amount), \(request.reason), \(admin), 'pending',
                        \(self.clock.now()), \(self.clock.now().addingTimeInterval(self.payments.recoveryAfter)))
                """, logger: self.logger)
            return (id, Money(amount: amount, currency: currency), authorization, false)
        }
        if !pending.done {
            let reference: String
            do {
                reference = try await provider.refund(
                    authorization: pending.authorization, amount: pending.amount,
                    idempotencyKey: PaymentStep.key("refund-\(pending.refund.uuidString.lowercased())", order: orderId))
            } catch let declined as PaymentDeclined {
                try await refundRefused(pending.refund, declined)
                throw ServiceError(.failedPrecondition, "the processor refused the refund: \(declined.message)")
            } catch {
                throw ServiceError(
                    .unavailable, "the processor did not answer; retry with the same Idempotency-Key",
                    details: ["retryAfterSeconds": .number(5)])
            }
            let stored = try await transaction { connection in
                try await self.recordRefund(pending.refund, of: orderId, reference: reference, on: connection)
            }
            for event in stored { events.announce(event) }
        }
        return try await refundReply(pending.refund, of: orderId)
    }

    /// Marks the refund done and writes its ledger row, the order's money flags and events.
    func recordRefund(_ refund: UUID, of orderId: UUID, reference: String, on connection: PostgresConnection)
        async throws -> [StoredEvent]
    {
        let rows = try await connection.fetch(
            """
            SELECT o.user_id, o.kind, o.state, o.currency, o.total_amount, r.amount, r.status, r.reason,
                   (SELECT coalesce(-sum(l.amount), 0)::bigint FROM orders.ledger l
                    WHERE l.order_id = o.id AND l.movement = 'refund')
            FROM orders.orders o JOIN orders.refunds r ON r.order_id = o.id
            WHERE o.id = \(orderId) AND r.id = \(refund) FOR UPDATE
            """, logger: logger)
        var found: (UUID, String, String, String, Int64, Int64, String, String?, Int64)?
        for try await row in rows.decode((UUID, String, String, String, Int64, Int64, String, String?, Int64).self) {
            found = row
        }
        guard let (user, kind, stateText, currency, total, amount, status, reason, refunded) = found,
            status == "pending", let state = OrderState(rawValue: stateText)
        else { return [] }
        let now = clock.now()
        try await connection.fetch(
            "UPDATE orders.refunds SET status = 'done', provider_ref = \(reference), due_at = NULL WHERE id = \(refund)",
            logger: logger)
        try await ledger(
            [Movement(movement: "refund", account: "charge", amount: -amount, reference: reference)], order: orderId,
            user: user, currency: currency, at: now, on: connection)
        let full = refunded + amount >= total
        let next: OrderState = full && state == .failed ? .refunded : state
        try await connection.fetch(
            """
            UPDATE orders.orders SET released = released OR \(full), state = \(next.rawValue), updated_at = \(now)
            WHERE id = \(orderId)
            """, logger: logger)
        var event = Orders.OrderEvent(
            orderId: orderId.uuidString.lowercased(), userId: user.uuidString.lowercased(), kind: kind,
            from: state.rawValue, state: next.rawValue, at: now, reason: reason ?? "refunded",
            total: Money(amount: amount, currency: currency))
        var stored = [try await append(Orders.PaymentTopic.refunded, event, requestId: nil, on: connection)]
        stored.append(try await appendRefundNotice(event, on: connection))
        if next != state {
            try await recordStates([(next, "the payment was refunded")], order: orderId, at: now, on: connection)
            event.total = Money(amount: total, currency: currency)
            stored.append(try await append(Orders.Topic.stateChanged, event, requestId: nil, on: connection))
        }
        return stored
    }

    /// The reply for a refund that is done.
    func refundReply(_ refund: UUID, of orderId: UUID) async throws -> Orders.RefundOrder.Reply {
        let rows = try await client.fetch(
            """
            SELECT r.amount, o.currency, o.state,
                   (SELECT coalesce(-sum(l.amount), 0)::bigint FROM orders.ledger l
                    WHERE l.order_id = o.id AND l.movement = 'refund')
            FROM orders.refunds r JOIN orders.orders o ON o.id = r.order_id WHERE r.id = \(refund)
            """, logger: logger)
        for try await (amount, currency, state, refunded) in rows.decode((Int64, String, String, Int64).self) {
            return .init(
                orderId: orderId.uuidString.lowercased(), refundId: refund.uuidString.lowercased(),
                amount: Money(amount: amount, currency: currency),
                refundedTotal: Money(amount: refunded, currency: currency),
                state: state)
        }
        throw ServiceError(.internal, "refund \(refund) vanished")
    }

    /// The buyer's notice of a refund (notify's `order_refunded`), beside `orders.refunded`.
    func appendRefundNotice(_ refunded: Orders.OrderEvent, on connection: PostgresConnection) async throws
        -> StoredEvent
    {
        let notice = Notify.OrderRefunded(
            userId: refunded.userId, orderId: refunded.orderId,
            amount: CurrencyTable.display(refunded.total.amount, refunded.total.currency))
        return try await events.append(
            topic: Notify.OrderRefunded.topic, payload: notice, requestId: nil, on: connection, logger: logger)
    }
}
