import Contract
import Foundation
import Logging
import OrdersContract
import PostgresNIO
import ServiceKit
import Store

/// Orders: placing (idempotent, with payment), moving through their states with the money
/// movements each move implies, and reading the history. Every change, its ledger rows and its
/// events commit in one transaction; no transaction is open while the payment provider is called
/// (see ``place(_:idempotencyKey:actor:requestId:)`` and ``sweepPayments()``).
public struct OrderBook: Sendable {
    let client: PostgresClient
    let quoting: Quoting
    let cards: PaymentMethodStore
    let provider: any PaymentProvider
    let events: EventPublisher
    let clock: any WallClock
    let logger: Logger
    /// Checks the images an order puts on a card; `nil` where no printing service exists to ask
    /// (the order-book tests without a broker).
    let images: PrintingImages?
    /// Asks social for a gift's price and the friendship; `nil` where no social service exists
    /// to ask (gift orders are then `unavailable`).
    let gifts: SocialGifts?
    /// How long an idempotency key is remembered (at least 24 hours).
    public let keyLifetime: TimeInterval
    /// When the recovery sweeper steps in, and how long a retry waits for a running payment.
    public let payments: PaymentTiming
    /// The daily cap on recipients of free e-cards per account.
    public let freeEcards: FreeEcardAllowance

    /// Creates the order book.
    public init(
        client: PostgresClient, quoting: Quoting, provider: any PaymentProvider, events: EventPublisher,
        images: PrintingImages?, gifts: SocialGifts? = nil, keyLifetime: TimeInterval,
        payments: PaymentTiming = PaymentTiming(), freeEcards: FreeEcardAllowance = FreeEcardAllowance(),
        clock: any WallClock, logger: Logger
    ) {
        self.payments = payments
        self.freeEcards = freeEcards
        self.images = images
        self.gifts = gifts
        self.client = client
        self.quoting = quoting
        self.cards = PaymentMethodStore(client: client, logger: logger)
        self.provider = provider
        self.events = events
        self.keyLifetime = keyLifetime
        self.clock = clock
        self.logger = logger
    }

    /// What an order holds besides its price: exactly one of the three kinds.
    struct Content: Codable, Sendable, Hashable {
        var postcard: Orders.PostcardDetails?
        var ecard: Orders.EcardDetails?
        var gift: Orders.GiftDetails?

        /// Names shown in the history list.
        var recipientNames: [String] {
            if let postcard { return postcard.recipients.map(\.name) }
            if let ecard { return ecard.recipients.map { $0.name ?? $0.email } }
            if let gift { return [gift.recipientKind == "friend" ? (gift.friendName ?? "a friend") : "self"] }
            return []
        }

        /// The images it puts on a card, with the request field that names each.
        var images: [(id: String, field: String)] {
            var found: [(id: String, field: String)] = []
            if let id = postcard?.imageId { found.append((id, "postcard.imageId")) }
            if let id = ecard?.imageId { found.append((id, "ecard.imageId")) }
            return found
        }

        /// What history search matches: names, addresses and e-mails, lower case.
        var searchText: String {
            var parts: [String] = []
            for recipient in postcard?.recipients ?? [] {
                let address = recipient.address
                parts += [recipient.name, address.line1, address.line2 ?? "", address.city, address.postalCode ?? ""]
                parts += [address.region ?? "", address.country]
            }
            for recipient in ecard?.recipients ?? [] { parts += [recipient.name ?? "", recipient.email] }
            if let gift { parts += [gift.friendName ?? "", gift.item.title] }
            return parts.filter { !$0.isEmpty }.joined(separator: "\n").lowercased()
        }
    }

    /// Runs `body` in a transaction; an error thrown by `body` comes out as it was thrown (not
    /// wrapped in `PostgresTransactionError`), so a `ServiceError` keeps its code.
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await client.transaction(logger: logger) { connection in try await body(connection) }
    }

    /// The user id of `actor` (a UUID, as auth issues them).
    static func userId(_ actor: Actor) throws(ServiceError) -> UUID {
        guard let id = UUID(uuidString: actor.userId) else {
            throw ServiceError(.unauthenticated, "the caller's user id is not a UUID")
        }
        return id
    }

    /// Appends an orders event on `connection` (inside the change's transaction).
    func append(
        _ topic: String, _ event: Orders.OrderEvent, requestId: String?, on connection: PostgresConnection
    ) async throws -> StoredEvent {
        try await events.append(topic: topic, payload: event, requestId: requestId, on: connection, logger: logger)
    }

    /// One ledger row to be: a movement on one account.
    struct Movement: Sendable {
        let movement: String
        let account: String
        let amount: Int64
        let reference: String
    }

    /// Appends ledger rows, in one statement.
    func ledger(
        _ movements: [Movement], order: UUID, user: UUID, currency: String, at now: Date,
        on connection: PostgresConnection
    ) async throws {
        guard !movements.isEmpty else { return }
        try await connection.fetch(
            """
            INSERT INTO orders.ledger
                (order_id, user_id, movement, account, amount, currency, provider, provider_ref, created_at)
            SELECT \(order), \(user), m.movement, m.account, m.amount, \(currency), \(provider.name), m.reference, \(now)
            FROM unnest(\(movements.map(\.movement))::text[], \(movements.map(\.account))::text[],
                        \(movements.map(\.amount))::bigint[], \(movements.map(\.reference))::text[])
                 WITH ORDINALITY AS m(movement, account, amount, reference, position)
            ORDER BY m.position
            """, logger: logger)
    }

    /// Records that the order reached `states` (in that order, each with an optional reason) at
    /// `now`, in one statement.
    func recordStates(
        _ states: [(state: OrderState, reason: String?)], order: UUID, at now: Date, on connection: PostgresConnection
    ) async throws {
        try await connection.fetch(
            """
            INSERT INTO orders.order_states (order_id, seq, state, at, reason)
            SELECT \(order), base.n + s.position, s.state, \(now), nullif(s.reason, '')
            FROM (SELECT coalesce(max(seq), 0) AS n FROM orders.order_states WHERE order_id = \(order)) base,
                 unnest(\(states.map(\.state.rawValue))::text[], \(states.map { $0.reason ?? "" })::text[])
                 WITH ORDINALITY AS s(state, reason, position)
            """, logger: logger)
    }
}
