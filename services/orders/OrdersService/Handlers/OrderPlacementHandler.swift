import Contract
import Crypto
import Foundation
import Logging
import OrdersContract
import ServiceKit
import Store

/// Placing orders: once per idempotency key, with payment (``PaymentHandler``), the card's
/// images checked with printing, a gift's price and friendship asked of social, a draft read
/// and contacts resolved before anything is written.
public struct OrderPlacementHandler: Sendable {
    let orders: OrderStore
    let keys: IdempotencyStore
    let freeEcardCounts: FreeEcardStore
    let quotes: QuoteHandler
    let payments: PaymentHandler
    let events: EventPublisher
    let transactions: Transactions
    let clock: any WallClock
    let logger: Logger
    /// Checks the images an order puts on a card; `nil` where no printing service exists to ask
    /// (tests without a broker).
    let images: PrintingImageClient?
    /// Asks social for a gift's price and the friendship; `nil` where no social service exists
    /// to ask (gift orders are then `unavailable`).
    let gifts: SocialGiftClient?
    /// Resolves the address-book contacts an order names (nil: such an order is `unavailable`).
    let contacts: SocialContactClient?
    /// Reads the saved postcard an order names by `draftId` (nil: such an order is `unavailable`).
    let drafts: PrintingDraftClient?
    /// How long an idempotency key is remembered (at least 24 hours).
    public let keyLifetime: TimeInterval
    /// When the recovery sweeper steps in, and how long a retry waits for a running payment.
    public let timing: PaymentTiming
    /// The daily cap on recipients of free e-cards per account.
    public let freeEcards: FreeEcardAllowance

    /// Creates the handler over its stores and clients.
    public init(
        orders: OrderStore, keys: IdempotencyStore, quotes: QuoteHandler, payments: PaymentHandler,
        events: EventPublisher, transactions: Transactions, images: PrintingImageClient?,
        gifts: SocialGiftClient? = nil, contacts: SocialContactClient? = nil, drafts: PrintingDraftClient? = nil,
        keyLifetime: TimeInterval, freeEcards: FreeEcardAllowance = FreeEcardAllowance(), clock: any WallClock,
        logger: Logger
    ) {
        self.orders = orders
        self.keys = keys
        self.freeEcardCounts = FreeEcardStore()
        self.quotes = quotes
        self.payments = payments
        self.events = events
        self.transactions = transactions
        self.images = images
        self.gifts = gifts
        self.contacts = contacts
        self.drafts = drafts
        self.keyLifetime = keyLifetime
        self.timing = payments.timing
        self.freeEcards = freeEcards
        self.clock = clock
        self.logger = logger
    }

    /// `place_order` as a client sends it: a draft named by id is read first, then contacts named
    /// instead of inline recipients are looked up, both outside any transaction; then the order
    /// is placed (``place(_:idempotencyKey:actor:requestId:asSent:)``). The key stands for the
    /// request as sent: a retry of an order from a draft answers what the first did, whatever the
    /// draft became.
    public func placeOrder(
        _ request: Orders.PlaceOrder.Request, actor: Actor, idempotencyKey key: String, requestId: String
    ) async throws -> Orders.PlaceOrder.Reply {
        let buyer = try actor.userUUID()
        if request.draftId != nil,
            let earlier = try await storedAnswer(for: request, idempotencyKey: key, actor: actor)
        {
            return earlier
        }
        let drafted = try await PrintingDraftClient.resolve(request, actor: actor, requestId: requestId, drafts: drafts)
        let resolved = try await SocialContactClient.resolve(
            drafted, buyer: buyer, requestId: requestId, contacts: contacts)
        return try await place(
            resolved, idempotencyKey: key, actor: actor, requestId: requestId,
            asSent: request.draftId == nil ? nil : request)
    }

    /// Places an order once per idempotency key, in three phases with no transaction open while
    /// the provider is called: (1) one transaction claims the key and writes the order as
    /// `pending_payment`; (2) the card is authorized (and, for e-cards and gifts, captured) with
    /// idempotency keys derived from the order; (3) one transaction writes the outcome, its
    /// ledger rows, its events and the answer under the key. Any later request with the key and
    /// the same body gets that answer (one arriving while the payment runs waits up to
    /// ``PaymentTiming/inFlightWait`` for it, then gets ``inProgress(retryAfter:)``, a 409 with
    /// `Retry-After`), with another body a `conflict`. A declined card is a `payment_required`
    /// (402) with the reason, and the failed order is kept. A provider that does not answer
    /// leaves the order to the recovery sweeper (``PaymentHandler/sweepPayments(limit:)``). A
    /// request that fails validation leaves the key unclaimed. A free e-card (total 0) needs no
    /// card, and no order that costs nothing reaches the provider; free e-cards count against the
    /// account's daily cap (``FreeEcardAllowance``). The key comes checked
    /// (``IdempotencyKey/validated(_:)``, by the gateway).
    /// `asSent` is the request as the client sent it, when `request` was filled in from elsewhere
    /// (a draft): the key stands for that, so a retry matches whatever the draft became since.
    public func place(
        _ request: Orders.PlaceOrder.Request, idempotencyKey key: String, actor: Actor, requestId: String,
        asSent: Orders.PlaceOrder.Request? = nil
    ) async throws -> Orders.PlaceOrder.Reply {
        let userId = try actor.userUUID()
        let hash = try Self.hash(asSent ?? request)
        let currency = try QuoteHandler.currency(request.currency)
        var draft = try OrderContent.of(request)
        if let gift = request.gift { try GiftRules.check(gift, buyer: userId) }
        let claim = KeyClaim(userId: userId, key: key, hash: hash)
        // Images checked, a gift's price and friendship asked of social, and the order priced
        // before the transaction, which must not wait for a second pool connection (or another
        // service) while it holds one: the requests queued behind its key hold theirs. A failure
        // of any counts only if this request wins the key: a retry of a placed order answers
        // what it answered, even when its quote has expired, its image has gone or the item's
        // price has changed since.
        let priced: Result<PriceBreakdown, any Error>
        var giftNotice: Orders.GiftReceived?
        do {
            if let gift = request.gift {
                guard let gifts else {
                    throw ServiceError(.unavailable, "gifts cannot be checked: no social service is configured")
                }
                let resolved = try await gifts.resolve(gift, buyer: userId, requestId: requestId)
                draft.gift = resolved.details
                if let friend = resolved.details.friendUserId {
                    giftNotice = Orders.GiftReceived(
                        userId: friend, fromName: resolved.buyerName ?? "A friend", title: resolved.details.item.title)
                }
            }
            for image in draft.images {
                try await images?.check(image.id, field: image.field, actor: actor, requestId: requestId)
            }
            let set =
                if let quoteId = request.quoteId {
                    try await quotes.quotedRates(quoteId, userId: userId, currency: currency)
                } else {
                    try await quotes.currentRates()
                }
            priced = .success(try await price(draft, currency: currency, rates: set.rates, requestId: requestId))
        } catch {
            priced = .failure(error)
        }
        let (content, notice) = (draft, giftNotice)
        // Phase 1: the key and the order, pending payment.
        let opened = try await transactions.run { tx -> PaymentHandler.PendingPayment? in
            let cardId = request.paymentMethodId.flatMap(UUID.init(uuidString:))
            let now = self.clock.now()
            guard
                let card = try await self.keys.claim(
                    claim, card: cardId, now: now, expires: now.addingTimeInterval(self.keyLifetime), in: tx)
            else { return nil }
            let breakdown = try priced.get()
            if request.paymentMethodId != nil, card == nil {
                throw ServiceError(.notFound, "no such payment method", details: ["field": "paymentMethodId"])
            }
            let freeEcard = breakdown.total.amount == 0 ? content.ecard : nil
            if card == nil, freeEcard == nil {
                throw ServiceError.invalidArgument(
                    "paymentMethodId is required: only a free e-card is placed without a card", field: "paymentMethodId")
            }
            if let ecard = freeEcard {
                try await self.checkFreeEcardAllowance(userId: userId, recipients: ecard.recipients.count, in: tx)
            }
            let order = NewOrder(
                id: UUID(), claim: claim, kind: request.kind, content: content, breakdown: breakdown, card: card,
                quoteId: request.quoteId.flatMap(UUID.init(uuidString:)), giftNotice: notice)
            let written = self.clock.now()
            try await self.orders.insertPending(
                order, now: written, due: written.addingTimeInterval(self.timing.recoveryAfter), in: tx)
            return PaymentHandler.PendingPayment(
                orderId: order.id, userId: userId, kind: order.kind, token: card?.token ?? "", total: breakdown.total,
                content: content, giftNotice: notice, cardId: card?.id, customer: card?.customer)
        }
        // Another request with the key committed first: answer what it answered.
        guard let pending = opened else { return try await earlierAnswer(userId: userId, key: key, hash: hash) }
        // Phase 2: the provider, with no transaction open.
        let charged = await payments.charge(pending, recovering: false)
        if case .unknown = charged { throw Self.inProgress(retryAfter: timing.recoveryAfter) }
        // Phase 3: the outcome.
        guard let (result, stored) = try await payments.finish(pending, charged, requestId: requestId) else {
            // The recovery sweeper finished the order first; its answer is under the key.
            return try await earlierAnswer(userId: userId, key: key, hash: hash)
        }
        for event in stored { events.announce(event) }
        return try result.get()
    }

    /// Refuses (429, ``FreeEcardAllowance/refusal(sent:recipients:retryAfter:)``) a free e-card
    /// to `recipients` more that would take the account past the day's cap, inside phase 1's
    /// transaction (after the key is claimed, so a retry of a placed order still gets its
    /// answer; the refusal rolls the claim back).
    func checkFreeEcardAllowance(userId: UUID, recipients: Int, in tx: Transaction) async throws {
        let now = clock.now()
        let day = FreeEcardAllowance.day(containing: now)
        let sent = try await freeEcardCounts.recipientsSent(userId: userId, from: day.start, to: day.end, in: tx)
        if case .exceeded(let sent, let retryAfter) = freeEcards.check(sent: sent, recipients: recipients, now: now) {
            throw freeEcards.refusal(sent: sent, recipients: recipients, retryAfter: retryAfter)
        }
    }

    /// What an earlier request with the key left: its answer, or a payment still running.
    enum Earlier: Sendable {
        case answered(Result<Orders.PlaceOrder.Reply, ServiceError>)
        case inProgress
    }

    /// The answer stored under `key` for `request` as sent, if an earlier request with the key
    /// finished (nil when there is none, or it is still running); a `conflict` when it had
    /// another body. An order from a draft asks this before it reads the draft, so a retry
    /// after the draft was changed or deleted answers what the first request answered.
    public func storedAnswer(for request: Orders.PlaceOrder.Request, idempotencyKey key: String, actor: Actor)
        async throws -> Orders.PlaceOrder.Reply?
    {
        let earlier = try await replay(userId: try actor.userUUID(), key: key, hash: try Self.hash(request))
        guard case .answered(let result)? = earlier else { return nil }
        return try result.get()
    }

    /// The stored result of an earlier request with the key, if any (unexpired); a `conflict`
    /// when that request had another body.
    func replay(userId: UUID, key: String, hash: String) async throws -> Earlier? {
        guard let record = try await keys.find(userId: userId, key: key, now: clock.now()) else { return nil }
        guard record.hash == hash else {
            throw ServiceError(
                .conflict, "this Idempotency-Key was used with a different request; use a new key",
                details: ["field": "Idempotency-Key"])
        }
        switch record {
        case .pending: return .inProgress
        case .answered(_, let result): return .answered(result)
        }
    }

    /// The answer of the earlier request with the key, waiting up to
    /// ``PaymentTiming/inFlightWait`` while its payment runs; then ``inProgress(retryAfter:)``.
    func earlierAnswer(userId: UUID, key: String, hash: String) async throws -> Orders.PlaceOrder.Reply {
        var waited = Duration.zero
        var pause = Duration.milliseconds(5)
        while true {
            switch try await replay(userId: userId, key: key, hash: hash) {
            case nil:
                throw ServiceError(.conflict, "the request with this Idempotency-Key did not finish; retry")
            case .answered(let result):
                return try result.get()
            case .inProgress:
                guard waited < timing.inFlightWait else {
                    throw Self.inProgress(retryAfter: 2)
                }
                let step = min(pause, timing.inFlightWait - waited)
                try await Task.sleep(for: step)
                waited += step
                pause = min(pause * 2, .milliseconds(200))
            }
        }
    }

    /// The 409 a retry gets while the payment of the order under its key is still running:
    /// `details.reason` is `payment_in_progress`, and `Retry-After` says when to ask again.
    static func inProgress(retryAfter: TimeInterval) -> ServiceError {
        ServiceError(
            .conflict, "the payment of the order under this Idempotency-Key is in progress; retry with the same key",
            details: [
                "reason": .string(Self.paymentInProgress),
                "retryAfterSeconds": .number(max(1, retryAfter.rounded(.up))),
            ])
    }

    /// `details.reason` of ``inProgress(retryAfter:)``.
    public static let paymentInProgress = "payment_in_progress"

    /// SHA-256 of the request in the contract's canonical JSON (sorted keys). The JSON carries an
    /// empty `idempotencyKey` member, as it did when the key travelled in the body, so a key
    /// claimed before that changed still matches a retry of the same body.
    static func hash(_ request: Orders.PlaceOrder.Request) throws -> String {
        SHA256.hash(data: try Wire.makeEncoder().encode(FingerprintedRequest(request: request))).lowercaseHex
    }

    /// The request, with the empty `idempotencyKey` member its stored fingerprints include.
    private struct FingerprintedRequest: Encodable {
        let request: Orders.PlaceOrder.Request
        enum Keys: String, CodingKey { case idempotencyKey }

        func encode(to encoder: any Encoder) throws {
            try request.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode("", forKey: .idempotencyKey)
        }
    }

    /// The breakdown of `content` in `currency`.
    func price(_ content: OrderContent, currency: String, rates: ExchangeRates, requestId: String) async throws
        -> PriceBreakdown
    {
        if let postcard = content.postcard {
            let tariff = try await quotes.tariffs.tariff(
                size: postcard.size, countries: postcard.recipients.map(\.address.country),
                metadata: RequestMetadata(requestId: requestId))
            return try quotes.pricing.postcard(
                size: postcard.size, countries: postcard.recipients.map(\.address.country), currency: currency,
                rates: rates, tariff: tariff, sizeField: "postcard.size", recipientsField: "postcard.recipients",
                countryField: { "postcard.recipients[\($0)].address.country" })
        }
        if let ecard = content.ecard {
            return try quotes.pricing.ecard(recipients: ecard.recipients.count, currency: currency, rates: rates)
        }
        if let gift = content.gift { return try quotes.pricing.gift(gift.item, currency: currency, rates: rates) }
        throw ServiceError.invalidArgument("nothing to price", field: "kind")
    }
}
