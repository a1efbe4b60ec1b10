import CommonContract
import Contract
import Foundation
import Logging
import OrdersContract
import ServiceKit
import Store

/// Payments: authorizing and capturing an order's card (phase 2, no transaction open) and
/// writing how it ended (phase 3), settling the captures, voids and refunds that state changes
/// call for, recovering payments a crash or a silent provider left between phases, and a
/// dispute opened at the processor. Every change, its ledger rows and its events commit in one
/// transaction; no transaction is open while the payment provider is called.
public struct PaymentHandler: Sendable {
    let orders: OrderStore
    let ledger: LedgerStore
    let keys: IdempotencyStore
    let cards: PaymentMethodStore
    /// Attaches a saved card to the user's customer before its first payment where the provider
    /// wants one.
    let paymentMethods: PaymentMethodHandler
    let provider: any PaymentProvider
    let events: EventPublisher
    let transactions: Transactions
    let clock: any WallClock
    let logger: Logger
    /// When the recovery sweeper steps in, and how long a claim holds.
    public let timing: PaymentTiming

    /// Creates the handler over its stores.
    public init(
        orders: OrderStore, ledger: LedgerStore, keys: IdempotencyStore, cards: PaymentMethodStore,
        paymentMethods: PaymentMethodHandler, provider: any PaymentProvider, events: EventPublisher,
        transactions: Transactions, timing: PaymentTiming = PaymentTiming(), clock: any WallClock, logger: Logger
    ) {
        self.orders = orders
        self.ledger = ledger
        self.keys = keys
        self.cards = cards
        self.paymentMethods = paymentMethods
        self.provider = provider
        self.events = events
        self.transactions = transactions
        self.timing = timing
        self.clock = clock
        self.logger = logger
    }

    /// What placing answered, and the events to announce after commit.
    typealias Placed = (Result<Orders.PlaceOrder.Reply, ServiceError>, [StoredEvent])

    /// An order committed as `pending_payment`: what phases 2 and 3 need.
    struct PendingPayment: Sendable {
        let orderId: UUID
        let userId: UUID
        let kind: String
        /// The provider's token of the card.
        let token: String
        let total: Money
        let content: OrderContent
        let giftNotice: Orders.GiftReceived?
        /// The saved card (nil when the recovery sweeper rebuilt the payment: it authorizes
        /// nothing new).
        var cardId: UUID? = nil
        /// The provider's customer the card is attached to (Stripe), if it is.
        var customer: String? = nil

        /// Nothing is printed for e-cards and gifts: their money is taken at once.
        var capturedAtOnce: Bool { Orders.OrderKind(rawValue: kind)?.capturedAtOnce ?? true }
    }

    /// What phase 2 learned from the provider.
    enum ChargeResult: Sendable {
        /// Nothing to pay (a free e-card): the processor is never called, and no ledger row is
        /// written; the order is `paid` with no authorization, so no capture, void or refund is
        /// ever due for it.
        case free
        /// Authorized, and captured when the kind is captured at once.
        case paid(authorization: String, capture: String?)
        /// Refused; with the authorization and its void when the capture was refused after it.
        case declined(PaymentDeclined, authorization: String?, void: String?)
        /// The buyer must confirm the payment (3-D Secure): the order stays `pending_payment`
        /// until the provider says how it ended (a webhook or the sweeper asks), and the client
        /// gets a 402 with the client secret.
        case actionRequired(PaymentDeclined)
        /// No answer (a timeout, a 5xx, a crash): the recovery sweeper finds out later.
        case unknown
    }

    /// The decline the recovery sweeper answers when the provider never received the order's
    /// authorization: the order is released and the client may place it again.
    static let notCompleted = PaymentDeclined(
        reason: "processing_error", message: "the payment could not be completed; place the order again")

    /// Phase 2: authorizes (or, `recovering`, asks the provider what the order's authorization
    /// came to) and captures at once where the kind wants it; a capture refused after the
    /// authorization voids it. Runs with no transaction open; every call carries a key derived
    /// from the order, so a repeat moves no money twice.
    func charge(_ payment: PendingPayment, recovering: Bool) async -> ChargeResult {
        let order = payment.orderId
        // A charge of 0 is never sent: processors refuse it, and there is no money to hold.
        if payment.total.amount == 0 { return .free }
        do {
            var (token, customer) = (payment.token, payment.customer)
            if !recovering, provider.usesCustomers, customer == nil, let cardId = payment.cardId {
                // A saved card not yet attached to the user's customer: attached now, before this
                // payment (a crash after the attach makes the next payment attach it again, which
                // is harmless).
                (token, customer) = try await paymentMethods.attach(token, userId: payment.userId)
                try await cards.setCustomer(cardId, token: token, customer: customer)
            }
            let authorization: String
            if !recovering, payment.capturedAtOnce,
                let charged = try await provider.authorizeAndCapture(
                    token: token, customer: customer, amount: payment.total,
                    idempotencyKey: PaymentStep.key("authorize", order: order))
            {
                return .paid(authorization: charged, capture: charged)
            }
            if recovering {
                guard let outcome = try await provider.outcome(of: PaymentStep.key("authorize", order: order)) else {
                    return .declined(Self.notCompleted, authorization: nil, void: nil)
                }
                authorization = try outcome.reference()
            } else {
                authorization = try await provider.authorize(
                    token: token, customer: customer, amount: payment.total,
                    idempotencyKey: PaymentStep.key("authorize", order: order))
            }
            guard payment.capturedAtOnce else { return .paid(authorization: authorization, capture: nil) }
            do {
                let capture = try await provider.capture(
                    authorization: authorization, amount: payment.total,
                    idempotencyKey: PaymentStep.key("capture", order: order))
                return .paid(authorization: authorization, capture: capture)
            } catch let refused as PaymentDeclined {
                let void = try await provider.void(
                    authorization: authorization, idempotencyKey: PaymentStep.key("void", order: order))
                return .declined(refused, authorization: authorization, void: void)
            }
        } catch let refused as PaymentDeclined {
            guard let waiting = refused.pendingAuthorization else {
                return .declined(refused, authorization: nil, void: nil)
            }
            guard recovering else { return .actionRequired(refused) }
            // The buyer never finished: cancel the payment still waiting at the provider.
            do {
                _ = try await provider.void(
                    authorization: waiting, idempotencyKey: PaymentStep.key("void", order: order))
            } catch {
                logger.warning(
                    "canceling a payment the buyer never confirmed failed; tried again later",
                    metadata: ["order": "\(order)", "error": "\(SafeErrorDescription.of(error))"])
                return .unknown
            }
            return .declined(
                PaymentDeclined(reason: refused.reason, message: "the payment was not confirmed in time"),
                authorization: nil, void: nil)
        } catch {
            logger.warning(
                "the payment provider did not answer; the order is left to the recovery sweeper",
                metadata: [
                    "order": "\(order)", "provider": "\(provider.name)", "error": "\(SafeErrorDescription.of(error))",
                ])
            return .unknown
        }
    }

    /// Phase 3: in one transaction, if the order is still `pending_payment`, writes the outcome:
    /// its state (`paid` or `failed`), the ledger rows, the answer under the key and the events.
    /// Nil when the order had already left `pending_payment` (the request and the recovery
    /// sweeper raced; the provider gave both the same answer).
    func finish(_ payment: PendingPayment, _ charged: ChargeResult, requestId: String?) async throws -> Placed? {
        let total = payment.total
        var movements: [LedgerMovement] = []
        var authorization: String?
        var captured = false
        var declined: PaymentDeclined?
        switch charged {
        case .unknown:
            return nil
        case .free:
            break
        case .actionRequired(let refusal):
            return try await awaitAction(payment, refusal)
        case .paid(let authorized, let capture):
            authorization = authorized
            movements.append(
                LedgerMovement(movement: "authorize", account: "hold", amount: total.amount, reference: authorized))
            if let capture {
                captured = true
                movements.append(
                    LedgerMovement(movement: "capture", account: "hold", amount: -total.amount, reference: capture))
                movements.append(
                    LedgerMovement(movement: "capture", account: "charge", amount: total.amount, reference: capture))
            }
        case .declined(let refusal, let authorized, let void):
            declined = refusal
            authorization = authorized
            if let authorized, let void {
                movements.append(
                    LedgerMovement(movement: "authorize", account: "hold", amount: total.amount, reference: authorized))
                movements.append(
                    LedgerMovement(movement: "void", account: "hold", amount: -total.amount, reference: void))
            }
        }
        let state: OrderState = declined == nil ? .paid : .failed
        let orderId = payment.orderId.uuidString.lowercased()
        let result: Result<Orders.PlaceOrder.Reply, ServiceError>
        if let declined {
            var error = declined.serviceError
            error.details?["orderId"] = .string(orderId)
            result = .failure(error)
        } else {
            result = .success(
                Orders.PlaceOrder.Reply(
                    id: orderId, state: state.rawValue, total: total,
                    deviceEcard: EcardShareText.deviceEcard(payment.content.ecard, imageUrl: nil)))
        }
        let released = authorization != nil && declined != nil
        return try await transactions.run { tx -> Placed? in
            guard try await self.orders.lockState(payment.orderId, in: tx) == .pendingPayment else { return nil }
            let now = self.clock.now()
            try await self.orders.recordPayment(
                payment.orderId, state: state, authorization: authorization, captured: captured, released: released,
                now: now, in: tx)
            try await self.orders.recordStates([(state, declined?.reason)], order: payment.orderId, at: now, in: tx)
            try await self.ledger.append(
                movements, order: payment.orderId, user: payment.userId, currency: total.currency,
                provider: self.provider.name, at: now, in: tx)
            try await self.keys.keep(result, order: payment.orderId, in: tx)
            let stored = try await self.appendOutcome(
                payment, state: state, declined: declined, at: now, requestId: requestId, in: tx)
            return (result, stored)
        }
    }

    /// Phase 3 for a payment waiting for the buyer's 3-D Secure step: the order stays
    /// `pending_payment` with the provider's payment as its authorization, due for the sweeper
    /// after ``PaymentTiming/actionWindow``; the 402 with the client secret is the answer under
    /// the key until the payment ends (then the stored answer becomes the final one).
    func awaitAction(_ payment: PendingPayment, _ refusal: PaymentDeclined) async throws -> Placed? {
        var error = refusal.serviceError
        error.details?["orderId"] = .string(payment.orderId.uuidString.lowercased())
        return try await transactions.run { tx -> Placed? in
            let now = self.clock.now()
            guard
                try await self.orders.awaitAction(
                    payment.orderId, authorization: refusal.pendingAuthorization, now: now,
                    due: now.addingTimeInterval(self.timing.actionWindow), in: tx)
            else { return nil }
            try await self.keys.keep(.failure(error), order: payment.orderId, in: tx)
            return (.failure(error), [])
        }
    }

    /// The outcome (with the content, for printing), the state change and the customer's
    /// notice (notify's `order_succeeded` / `order_failed`), and a gift's notice to its
    /// recipient, in one statement.
    func appendOutcome(
        _ payment: PendingPayment, state: OrderState, declined: PaymentDeclined?, at now: Date, requestId: String?,
        in tx: Transaction
    ) async throws -> [StoredEvent] {
        let orderId = payment.orderId.uuidString.lowercased()
        let user = payment.userId.uuidString.lowercased()
        let event = Orders.OrderEvent(
            orderId: orderId, userId: user, kind: payment.kind, from: OrderState.pendingPayment.rawValue,
            state: state.rawValue, at: now, reason: declined?.reason, total: payment.total)
        var outcome = event
        let notice: (topic: String, payload: any Encodable)
        if let declined {
            notice = (
                Orders.OrderFailed.topic, Orders.OrderFailed(userId: user, orderId: orderId, reason: declined.message)
            )
        } else {
            outcome.postcard = payment.content.postcard
            outcome.ecard = payment.content.ecard
            notice = (Orders.OrderSucceeded.topic, Orders.OrderSucceeded(userId: user, orderId: orderId))
        }
        var appended: [(topic: String, payload: any Encodable)] = [
            (declined == nil ? Orders.Topic.paid : Orders.Topic.paymentFailed, outcome),
            (Orders.Topic.stateChanged, event), notice,
        ]
        if declined == nil, let gift = payment.giftNotice { appended.append((Orders.GiftReceived.topic, gift)) }
        return try await events.append(appended, requestId: requestId, in: tx)
    }

    /// A dispute opened on an order's charge: the order is marked, `orders.disputed` logged.
    func recordDispute(intent: String, reason: String) async throws {
        let stored = try await transactions.run { tx -> [StoredEvent] in
            let now = self.clock.now()
            var stored: [StoredEvent] = []
            for marked in try await self.orders.markDisputed(authorization: intent, now: now, in: tx) {
                let event = Orders.OrderEvent(
                    orderId: marked.orderId.uuidString.lowercased(), userId: marked.userId.uuidString.lowercased(),
                    kind: marked.kind, from: marked.state, state: marked.state, at: now, reason: reason,
                    total: marked.total)
                stored.append(
                    try await self.events.append(
                        topic: Orders.PaymentTopic.disputed, payload: event, requestId: nil, in: tx))
                stored.append(
                    try await self.events.append(
                        topic: Orders.OrderDisputed.topic,
                        payload: Orders.OrderDisputed(userId: event.userId, orderId: event.orderId), requestId: nil,
                        in: tx))
            }
            return stored
        }
        for event in stored { events.announce(event) }
    }
}
