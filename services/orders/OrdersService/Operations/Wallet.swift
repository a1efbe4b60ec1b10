import Contract
import Foundation
import Logging
import OrdersContract
import Store

/// The user's saved cards: tokenized by the payment provider, kept as token, brand, last four
/// digits and expiry.
public struct Wallet: Sendable {
    let store: PaymentMethodStore
    let provider: any PaymentProvider
    let clock: any WallClock

    /// Creates the wallet.
    public init(store: PaymentMethodStore, provider: any PaymentProvider, clock: any WallClock) {
        self.store = store
        self.provider = provider
        self.clock = clock
    }

    /// Validates and tokenizes the card, then saves the token; the number and CVC go no further.
    public func add(_ request: Orders.AddPaymentMethod.Request, actor: Actor) async throws -> Orders.PaymentMethod {
        let userId = try OrderBook.userId(actor)
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
        let userId = try OrderBook.userId(actor)
        let now = clock.now()
        let card = try await provider.retrieveTokenized(request.paymentMethodId, now: now)
        return try await keep(card, userId: userId, field: "paymentMethodId", now: now)
    }

    /// Attaches the card to the user's customer where the provider wants one
    /// (``CardCustomers``), then saves it. A card the provider will not attach (a Stripe
    /// PaymentMethod that already paid once without a Customer) is `invalid_argument` naming
    /// `field`.
    func keep(_ card: TokenizedCard, userId: UUID, field: String, now: Date) async throws -> Orders.PaymentMethod {
        let attached: (token: String, customer: String?)
        do {
            attached = try await CardCustomers(store: store, provider: provider, clock: clock).attach(
                card.token, userId: userId)
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
        let page = try await store.list(userId: try OrderBook.userId(actor), after: after, limit: limit + 1)
        return .init(fetched: page, limit: limit) { $0.id }
    }

    /// Forgets one of the caller's cards.
    public func delete(_ id: String, actor: Actor) async throws {
        guard let methodId = UUID(uuidString: id) else { throw ServiceError.notFound("no such payment method") }
        try await store.delete(methodId, userId: try OrderBook.userId(actor), now: clock.now())
    }
}
