import Contract
import Foundation
import Logging
import OrdersContract
import ServiceKit
import Store

/// Moving orders through their states: the customer's cancel, and the moves printing's job
/// events call for. A move, its state record and its events commit in one transaction; the
/// capture, void or refund it calls for is left to the settler (``PaymentHandler/settle(_:)``),
/// which runs after that transaction has committed.
public struct OrderTransitionHandler: Sendable {
    let orders: OrderStore
    let payments: PaymentHandler
    let history: OrderHistoryHandler
    let events: EventPublisher
    let transactions: Transactions
    let clock: any WallClock

    /// Creates the handler over its stores.
    public init(
        orders: OrderStore, payments: PaymentHandler, history: OrderHistoryHandler, events: EventPublisher,
        transactions: Transactions, clock: any WallClock
    ) {
        self.orders = orders
        self.payments = payments
        self.history = history
        self.events = events
        self.transactions = transactions
        self.clock = clock
    }

    /// Cancels the caller's order if production has not started (422 otherwise; 409
    /// `payment_in_progress` while its payment runs): the hold is voided, or a captured payment
    /// refunded, after the cancellation commits.
    public func cancel(_ id: String, actor: Actor, requestId: String) async throws -> Orders.OrderDetail {
        let userId = try actor.userUUID()
        guard let orderId = UUID(uuidString: id) else { throw ServiceError.notFound("no such order") }
        let stored = try await transactions.run { tx in
            try await self.move(
                orderId, to: .canceled, reason: "canceled by the customer", owner: userId, requestId: requestId, in: tx)
        }
        for event in stored { events.announce(event) }
        try await payments.settle(orderId)
        return try await history.detail(id, actor: actor)
    }

    /// Moves an order to `target`, records the state and appends the events; when the move calls
    /// for a money movement (``PaymentStep``) the order is marked due for the settler, which
    /// moves the money after this transaction commits. `owner` (when given) must own the order,
    /// else `not_found`.
    func move(
        _ orderId: UUID, to target: OrderState, reason: String?, owner: UUID?, requestId: String?, in tx: Transaction
    ) async throws -> [StoredEvent] {
        guard let found = try await orders.lock(orderId, in: tx), owner == nil || owner == found.userId else {
            throw ServiceError.notFound("no such order")
        }
        guard let current = OrderState(rawValue: found.state) else {
            throw ServiceError(.internal, "order \(orderId) has an unknown state \(found.state)")
        }
        if current == target { return [] }
        if current == .pendingPayment { throw OrderPlacementHandler.inProgress(retryAfter: 2) }
        _ = try current.move(to: target)

        let now = clock.now()
        let captureOwed = found.captureOwed || target == .inProduction
        let due =
            PaymentStep.due(
                state: target, authorized: found.authorization != nil, captured: found.captured,
                released: found.released, captureOwed: captureOwed) != nil
        try await orders.move(orderId, to: target, captureOwed: captureOwed, due: due, now: now, in: tx)
        try await orders.recordStates([(target, reason)], order: orderId, at: now, in: tx)
        let event = Orders.OrderEvent(
            orderId: orderId.uuidString.lowercased(), userId: found.userId.uuidString.lowercased(), kind: found.kind,
            from: current.rawValue, state: target.rawValue, at: now, reason: reason, total: found.total)
        var stored: [StoredEvent] = []
        if target == .canceled {
            stored.append(
                try await events.append(topic: Orders.Topic.canceled, payload: event, requestId: requestId, in: tx))
        }
        stored.append(
            try await events.append(topic: Orders.Topic.stateChanged, payload: event, requestId: requestId, in: tx))
        return stored
    }
}
