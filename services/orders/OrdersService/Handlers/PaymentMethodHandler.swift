import Contract
import Foundation
import Logging
import OrdersContract
import Store

/// The user's saved cards: tokenized by the payment provider, kept as token, brand, last four
/// digits and expiry.
public struct PaymentMethodHandler: Sendable {
    let store: PaymentMethodStore
    let provider: any PaymentProvider
    let clock: any WallClock

    /// Creates the handler.
    public init(store: PaymentMethodStore, provider: any PaymentProvider, clock: any WallClock) {
        self.store = store
        self.provider = provider
        self.clock = clock
    }

    /// Validates and tokenizes the card, then saves the token; the number and CVC go no further.
    public func add(_ request: Orders.AddPaymentMethod.Request, actor: Actor) async throws -> Orders.PaymentMethod {
        let userId = try actor.userUUID()
        let card = CardDetails(
            number: request.number, expMonth: request.expMonth, expYear: request.expYear, cvc: request.cvc)
        let now = clock.now()
        let token = try await provider.tokenize(card, now: now)
        return try await keep(token, userId: userId, field: "number", now: now)
    }

    /// Saves a card the app tokenized itself (Stripe's `pm_...`): the provider is asked what
    /// the card is (brand, last four, expiry) and the id is kept as its token.
    public func addTokenized(_ request: Orders.SaveTokenizedPaymentMethod.Request, actor: Actor) async throws
        -> Orders.PaymentMethod
    {
        let userId = try actor.userUUID()
        let now = clock.now()
        let card = try await provider.retrieveTokenized(request.paymentMethodId, now: now)
        return try await keep(card, userId: userId, field: "paymentMethodId", now: now)
    }

    /// Attaches the card to the user's customer where the provider wants one
    /// (``attach(_:userId:)``), then saves it. A card the provider will not attach (a Stripe
    /// PaymentMethod that already paid once without a Customer) is `invalid_argument` naming
    /// `field`.
    func keep(_ card: TokenizedCard, userId: UUID, field: String, now: Date) async throws -> Orders.PaymentMethod {
        let attached: (token: String, customer: String?)
        do {
            attached = try await attach(card.token, userId: userId)
        } catch let refused as PaymentDeclined {
            throw ServiceError(.invalidArgument, refused.message, details: ["field": .string(field)])
        }
        let kept = TokenizedCard(
            token: attached.token, brand: card.brand, last4: card.last4, expMonth: card.expMonth,
            expYear: card.expYear)
        return try await store.add(kept, provider: provider.name, userId: userId, customer: attached.customer, now: now)
    }

    /// A page of the caller's cards, oldest first; the cursor is the last card's id.
    public func list(_ request: Orders.ListPaymentMethods.Request, actor: Actor) async throws
        -> Orders.ListPaymentMethods.Reply
    {
        let limit = try Orders.ListPaymentMethods.pageSize.limit(request.limit)
        var after: UUID?
        if let cursor = request.cursor {
            guard let id = UUID(uuidString: cursor) else {
                throw ServiceError.invalidArgument("not a cursor from this API", field: "cursor")
            }
            after = id
        }
        let page = try await store.list(userId: try actor.userUUID(), after: after, limit: limit + 1)
        return .init(fetched: page, limit: limit) { $0.id }
    }

    /// Forgets one of the caller's cards.
    @discardableResult
    public func delete(_ id: String, actor: Actor) async throws -> Empty {
        guard let methodId = UUID(uuidString: id) else { throw ServiceError.notFound("no such payment method") }
        try await store.delete(methodId, userId: try actor.userUUID(), now: clock.now())
        return Empty()
    }

    /// `token` attached to `userId`'s customer: the token to keep (the provider may answer a
    /// new one) and the customer; unchanged with no customer when the provider has none.
    /// ``PaymentDeclined`` when the provider refuses the card for good.
    ///
    /// Saved cards are made reusable where the provider wants a customer (Stripe: a PaymentMethod
    /// that paid without a Customer can never pay again). One provider customer per user, kept in
    /// `orders.payment_customers`; every card is attached to it before it is kept, and a card kept
    /// before this (no `customer_id`) is attached on its next payment.
    ///
    /// Each step stands alone, with no transaction open while the provider is called: look up the
    /// user's customer; if there is none, find or make it at the provider (its idempotency key is
    /// derived from the user, so a repeat after a crash gets the same one) and keep it (the first
    /// kept wins, a racing second is dropped); attach the card (keyed by card and customer;
    /// attaching again is harmless). A crash between any two steps leaves nothing a repeat does
    /// not finish.
    func attach(_ token: String, userId: UUID) async throws -> (token: String, customer: String?) {
        guard provider.usesCustomers else { return (token, nil) }
        let customer: String
        if let known = try await store.customer(userId: userId, provider: provider.name) {
            customer = known
        } else {
            guard let made = try await provider.customer(for: userId) else { return (token, nil) }
            customer = try await store.keepCustomer(made, userId: userId, provider: provider.name, now: clock.now())
        }
        return (try await provider.attach(token: token, customer: customer), customer)
    }
}
