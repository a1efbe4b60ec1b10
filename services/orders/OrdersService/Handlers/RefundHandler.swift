import CommonContract
import Contract
import Crypto
import Foundation
import Logging
import OrdersContract
import ServiceKit
import Store

/// Refunds: an operator's refund of an order's captured payment, made in phases with no
/// transaction open while the processor is called, the sweeper that finishes refunds left
/// pending, and refunds the processor reports (Stripe's dashboard).
public struct RefundHandler: Sendable {
    let orders: OrderStore
    let refunds: RefundStore
    let ledger: LedgerStore
    let provider: any PaymentProvider
    let events: EventPublisher
    let transactions: Transactions
    let clock: any WallClock
    let logger: Logger
    /// When a refund left pending is due for the sweeper, and how long a claim holds.
    let timing: PaymentTiming

    /// Creates the handler over its stores.
    public init(
        orders: OrderStore, refunds: RefundStore, ledger: LedgerStore, provider: any PaymentProvider,
        events: EventPublisher, transactions: Transactions, timing: PaymentTiming = PaymentTiming(),
        clock: any WallClock, logger: Logger
    ) {
        self.orders = orders
        self.refunds = refunds
        self.ledger = ledger
        self.provider = provider
        self.events = events
        self.transactions = transactions
        self.timing = timing
        self.clock = clock
        self.logger = logger
    }

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
        let admin = try actor.userUUID()
        guard let orderId = UUID(uuidString: request.id) else { throw ServiceError.notFound("no such order") }
        if let amount = request.amount, amount < 1 {
            throw ServiceError.invalidArgument("amount is at least 1 (minor units)", field: "amount")
        }
        if let reason = request.reason, reason.count > 200 {
            throw ServiceError.invalidArgument("reason is at most 200 characters", field: "reason")
        }
        let hash = SHA256.hash(data: try Wire.makeEncoder().encode(request)).lowercaseHex
        typealias Pending = (refund: UUID, amount: Money, authorization: String, done: Bool)
        let pending = try await transactions.run { tx -> Pending in
            guard let order = try await self.orders.lockRefundable(orderId, in: tx) else {
                throw ServiceError.notFound("no such order")
            }
            let currency = order.total.currency
            if let previous = try await self.refunds.find(order: orderId, key: key, in: tx) {
                guard previous.requestHash == hash else {
                    throw ServiceError(
                        .conflict, "this Idempotency-Key was used with a different refund; use a new key",
                        details: ["field": "Idempotency-Key"])
                }
                guard previous.status != "failed" else {
                    throw ServiceError(
                        .failedPrecondition,
                        "the processor refused this refund: \(previous.failure ?? "no reason given")")
                }
                return (
                    previous.id, Money(amount: previous.amount, currency: currency), order.authorization ?? "",
                    previous.status == "done"
                )
            }
            guard let authorization = order.authorization, order.captured else {
                throw ServiceError(.failedPrecondition, "the order has no captured payment to refund")
            }
            let left = order.total.amount - order.refunded - order.inFlight
            let amount = request.amount ?? left
            guard left > 0, amount <= left else {
                throw ServiceError(
                    .failedPrecondition, "at most \(max(left, 0)) (minor units) is left to refund",
                    details: ["field": "amount", "left": .number(Double(max(left, 0)))])
            }
            let id = UUID()
            try await self.refunds.insert(
                id, order: orderId, key: key, hash: hash, amount: amount, reason: request.reason, admin: admin,
                now: self.clock.now(), due: self.clock.now().addingTimeInterval(self.timing.recoveryAfter), in: tx)
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
            let stored = try await transactions.run { tx in
                try await self.recordRefund(pending.refund, of: orderId, reference: reference, in: tx)
            }
            for event in stored { events.announce(event) }
        }
        return try await refundReply(pending.refund, of: orderId)
    }

    /// Marks the refund done and writes its ledger row, the order's money flags and events.
    func recordRefund(_ refund: UUID, of orderId: UUID, reference: String, in tx: Transaction) async throws
        -> [StoredEvent]
    {
        guard let found = try await refunds.lock(refund, order: orderId, in: tx), found.status == "pending",
            let state = OrderState(rawValue: found.state)
        else { return [] }
        let (user, kind, currency, total, amount) = (
            found.userId, found.kind, found.total.currency, found.total.amount, found.amount
        )
        let now = clock.now()
        try await refunds.markDone(refund, reference: reference, in: tx)
        try await ledger.append(
            [LedgerMovement(movement: "refund", account: "charge", amount: -amount, reference: reference)],
            order: orderId, user: user, currency: currency, provider: provider.name, at: now, in: tx)
        let full = found.refunded + amount >= total
        let next: OrderState = full && state == .failed ? .refunded : state
        try await orders.recordRefund(orderId, full: full, state: next, now: now, in: tx)
        var event = Orders.OrderEvent(
            orderId: orderId.uuidString.lowercased(), userId: user.uuidString.lowercased(), kind: kind,
            from: state.rawValue, state: next.rawValue, at: now, reason: found.reason ?? "refunded",
            total: Money(amount: amount, currency: currency))
        var stored = [
            try await events.append(topic: Orders.PaymentTopic.refunded, payload: event, requestId: nil, in: tx)
        ]
        stored.append(try await appendRefundNotice(event, in: tx))
        if next != state {
            try await orders.recordStates([(next, "the payment was refunded")], order: orderId, at: now, in: tx)
            event.total = Money(amount: total, currency: currency)
            stored.append(
                try await events.append(topic: Orders.Topic.stateChanged, payload: event, requestId: nil, in: tx))
        }
        return stored
    }

    /// The reply for a refund that is done.
    func refundReply(_ refund: UUID, of orderId: UUID) async throws -> Orders.RefundOrder.Reply {
        guard let outcome = try await refunds.outcome(refund) else {
            throw ServiceError(.internal, "refund \(refund) vanished")
        }
        return .init(
            orderId: orderId.uuidString.lowercased(), refundId: refund.uuidString.lowercased(),
            amount: outcome.amount, refundedTotal: outcome.refunded, state: outcome.state)
    }

    /// The buyer's notice of a refund (notify's `order_refunded`), beside `orders.refunded`.
    func appendRefundNotice(_ refunded: Orders.OrderEvent, in tx: Transaction) async throws -> StoredEvent {
        let notice = Orders.OrderRefunded(
            userId: refunded.userId, orderId: refunded.orderId,
            amount: CurrencyTable.display(refunded.total.amount, refunded.total.currency))
        return try await events.append(topic: Orders.OrderRefunded.topic, payload: notice, requestId: nil, in: tx)
    }

    /// A refund made at the processor (Stripe's `charge.refunded`, `refunded` in all so far):
    /// the part not yet in the ledger is written as a refund, the order's money released once
    /// all of it is back (and a failed order becomes `refunded`), with `orders.refunded`.
    func recordProcessorRefund(intent: String, refunded: Int64, reference: String) async throws {
        let stored = try await transactions.run { tx -> [StoredEvent] in
            // Refunded in the ledger and asked of the processor already.
            guard let found = try await self.orders.lockRefundable(authorization: intent, in: tx), found.captured,
                refunded > found.refunded + found.inFlight, let state = OrderState(rawValue: found.state)
            else { return [] }
            let already = found.refunded + found.inFlight
            let (order, user, kind, currency, total) = (
                found.orderId, found.userId, found.kind, found.total.currency, found.total.amount
            )
            let now = self.clock.now()
            let amount = min(refunded, total) - already
            guard amount > 0 else { return [] }
            try await self.ledger.append(
                [LedgerMovement(movement: "refund", account: "charge", amount: -amount, reference: reference)],
                order: order, user: user, currency: currency, provider: self.provider.name, at: now, in: tx)
            let full = already + amount >= total
            let next: OrderState = full && state == .failed ? .refunded : state
            try await self.orders.recordRefund(order, full: full, state: next, now: now, in: tx)
            var event = Orders.OrderEvent(
                orderId: order.uuidString.lowercased(), userId: user.uuidString.lowercased(), kind: kind,
                from: state.rawValue, state: next.rawValue, at: now, reason: "refunded at the processor",
                total: Money(amount: amount, currency: currency))
            var stored = [
                try await self.events.append(
                    topic: Orders.PaymentTopic.refunded, payload: event, requestId: nil, in: tx)
            ]
            stored.append(try await self.appendRefundNotice(event, in: tx))
            if next != state {
                try await self.orders.recordStates(
                    [(next, "the payment was refunded")], order: order, at: now, in: tx)
                event.total = Money(amount: total, currency: currency)
                stored.append(
                    try await self.events.append(
                        topic: Orders.Topic.stateChanged, payload: event, requestId: nil, in: tx))
            }
            return stored
        }
        for event in stored { events.announce(event) }
    }
}
