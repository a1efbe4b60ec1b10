import Contract
import Crypto
import Foundation
import NotifyContract
import OrdersContract
import PostgresNIO
import PrintingContract
import Store

extension OrderBook {
    /// Places an order once per idempotency key, in three phases with no transaction open while
    /// the provider is called: (1) one transaction claims the key and writes the order as
    /// `pending_payment`; (2) the card is authorized (and, for e-cards and gifts, captured) with
    /// idempotency keys derived from the order; (3) one transaction writes the outcome, its
    /// ledger rows, its events and the answer under the key. Any later request with the key and
    /// the same body gets that answer (one arriving while the payment runs waits up to
    /// ``PaymentTiming/inFlightWait`` for it, then gets ``Self/inProgress(_:)``, a 409 with
    /// `Retry-After`), with another body a `conflict`. A declined card is a `payment_required`
    /// (402) with the reason, and the failed order is kept. A provider that does not answer
    /// leaves the order to the recovery sweeper (``sweepPayments()``). A request that fails
    /// validation leaves the key unclaimed. A free e-card (total 0) needs no card, and no order
    /// that costs nothing reaches the provider; free e-cards count against the account's daily cap
    /// (``FreeEcardAllowance``). The key comes checked
    /// (``IdempotencyKey/validated(_:)``, by the gateway).
    /// `asSent` is the request as the client sent it, when `request` was filled in from elsewhere
    /// (a draft): the key stands for that, so a retry matches whatever the draft became since.
    public func place(
        _ request: Orders.PlaceOrder.Request, idempotencyKey key: String, actor: Actor, requestId: String,
        asSent: Orders.PlaceOrder.Request? = nil
    ) async throws -> Orders.PlaceOrder.Reply {
        let userId = try Self.userId(actor)
        let hash = try Self.hash(asSent ?? request)
        let currency = try Quoting.currency(request.currency)
        var draft = try Self.content(of: request)
        if let gift = request.gift { try GiftRules.check(gift, buyer: userId) }
        let claim = Claim(userId: userId, key: key, hash: hash)
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
                    try await quoting.quotedRates(quoteId, userId: userId, currency: currency)
                } else {
                    try await quoting.currentRates()
                }
            priced = .success(try await price(draft, currency: currency, rates: set.rates, requestId: requestId))
        } catch {
            priced = .failure(error)
        }
        let (content, notice) = (draft, giftNotice)
        // Phase 1: the key and the order, pending payment.
        let opened = try await transaction { connection -> PendingPayment? in
            let cardId = request.paymentMethodId.flatMap(UUID.init(uuidString:))
            guard let card = try await self.claim(claim, card: cardId, on: connection) else { return nil }
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
                try await self.checkFreeEcardAllowance(userId: userId, recipients: ecard.recipients.count, on: connection)
            }
            let order = NewOrder(
                id: UUID(), claim: claim, kind: request.kind, content: content, breakdown: breakdown, card: card,
                quoteId: request.quoteId.flatMap(UUID.init(uuidString:)), giftNotice: notice)
            try await self.insertPending(order, on: connection)
            return PendingPayment(
                orderId: order.id, userId: userId, kind: order.kind, token: card?.token ?? "", total: breakdown.total,
                content: content, giftNotice: notice, cardId: card?.id, customer: card?.customer)
        }
        // Another request with the key committed first: answer what it answered.
        guard let pending = opened else { return try await earlierAnswer(userId: userId, key: key, hash: hash) }
        // Phase 2: the provider, with no transaction open.
        let charged = await charge(pending, recovering: false)
        if case .unknown = charged { throw inProgress(retryAfter: payments.recoveryAfter) }
        // Phase 3: the outcome.
        guard let (result, stored) = try await finish(pending, charged, requestId: requestId) else {
            // The recovery sweeper finished the order first; its answer is under the key.
            return try await earlierAnswer(userId: userId, key: key, hash: hash)
        }
        for event in stored { events.announce(event) }
        return try result.get()
    }

    /// What placing answered, and the events to announce after commit.
    typealias Placed = (Result<Orders.PlaceOrder.Reply, ServiceError>, [StoredEvent])

    /// Whose key, and the hash of the request body it stands for.
    struct Claim: Sendable {
        let userId: UUID
        let key: String
        let hash: String
    }

    /// An order about to be written.
    struct NewOrder: Sendable {
        let id: UUID
        let claim: Claim
        let kind: String
        let content: Content
        let breakdown: PriceBreakdown
        /// The card that pays; nil for an order that costs nothing.
        let card: PaymentMethodStore.Saved?
        let quoteId: UUID?
        /// The gift recipient's notice, sent once the order is paid (it never carries the price).
        let giftNotice: Orders.GiftReceived?
    }

    /// Claims the key for this transaction (or takes over an expired one) and reads the user's
    /// card `cardId` (not deleted), in one statement: nil when another request holds the key, else
    /// the card if there is one. A concurrent claim of the same key waits here until the first
    /// commits.
    func claim(_ claim: Claim, card cardId: UUID?, on connection: PostgresConnection) async throws
        -> PaymentMethodStore.Saved??
    {
        let now = clock.now()
        let rows = try await connection.fetch(
            ClaimStatement(claim: claim, now: now, expires: now.addingTimeInterval(keyLifetime), cardId: cardId),
            logger: logger)
        for (won, id, provider, token, brand, last4, month, year, customer) in rows {
            guard won else { return nil }
            guard let id, let provider, let token, let brand, let last4, let month, let year else { return .some(nil) }
            return PaymentMethodStore.Saved(
                id: id,
                method: Orders.PaymentMethod(
                    id: id.uuidString.lowercased(), brand: brand, last4: last4, expMonth: month, expYear: year),
                provider: provider, token: token, customer: customer)
        }
        throw ServiceError(.internal, "claiming an idempotency key returned no row")
    }

    /// ``claim(_:card:on:)``'s statement, prepared once per connection (every order runs it).
    struct ClaimStatement: PostgresPreparedStatement {
        static let sql = """
            WITH claimed AS (
                INSERT INTO orders.idempotency_keys
                    (user_id, key, request_hash, status, response, created_at, expires_at)
                VALUES ($1, $2, $3, 'pending', '{}', $4, $5)
                ON CONFLICT (user_id, key) DO UPDATE
                    SET request_hash = excluded.request_hash, status = 'pending', response = '{}', order_id = NULL,
                        created_at = excluded.created_at, expires_at = excluded.expires_at
                    WHERE orders.idempotency_keys.expires_at <= $4
                RETURNING 1
            )
            SELECT EXISTS (SELECT 1 FROM claimed),
                   pm.id, pm.provider, pm.token, pm.brand, pm.last4, pm.exp_month, pm.exp_year, pm.customer_id
            FROM (SELECT 1) one
            LEFT JOIN orders.payment_methods pm ON pm.id = $6 AND pm.user_id = $1 AND pm.deleted_at IS NULL
            """
        static let bindingDataTypes: [PostgresDataType] = [.uuid, .text, .text, .timestamptz, .timestamptz, .uuid]
        typealias Row = (Bool, UUID?, String?, String?, String?, String?, Int?, Int?, String?)

        let claim: Claim
        let now: Date
        let expires: Date
        let cardId: UUID?

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 6)
            bindings.append(claim.userId)
            bindings.append(claim.key)
            bindings.append(claim.hash)
            bindings.append(now)
            bindings.append(expires)
            bindings.append(cardId)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// Writes the order as `pending_payment` (its first state, no ledger rows, no events) and
    /// names it under the key, in one statement; the recovery sweeper may take it once
    /// ``PaymentTiming/recoveryAfter`` has passed.
    func insertPending(_ order: NewOrder, on connection: PostgresConnection) async throws {
        let now = clock.now()
        let encoder = Wire.makeEncoder()
        let breakdown = String(decoding: try encoder.encode(order.breakdown), as: UTF8.self)
        let details = String(decoding: try encoder.encode(order.content), as: UTF8.self)
        let notice = try order.giftNotice.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        try await connection.fetch(
            InsertStatement(
                order: order, now: now, due: now.addingTimeInterval(payments.recoveryAfter), breakdown: breakdown,
                details: details, giftNotice: notice),
            logger: logger)
    }

    /// Refuses (429, ``FreeEcardAllowance/refusal(sent:recipients:retryAfter:)``) a free e-card
    /// to `recipients` more that would take the account past the day's cap, inside phase 1's
    /// transaction (after the key is claimed, so a retry of a placed order still gets its
    /// answer; the refusal rolls the claim back).
    func checkFreeEcardAllowance(userId: UUID, recipients: Int, on connection: PostgresConnection) async throws {
        let now = clock.now()
        let day = FreeEcardAllowance.day(containing: now)
        let sent = try await FreeEcardStore(logger: logger).recipientsSent(
            userId: userId, from: day.start, to: day.end, on: connection)
        if case .exceeded(let sent, let retryAfter) = freeEcards.check(sent: sent, recipients: recipients, now: now) {
            throw freeEcards.refusal(sent: sent, recipients: recipients, retryAfter: retryAfter)
        }
    }

    /// What an earlier request with the key left: its answer, or a payment still running.
    enum Earlier: Sendable {
        case answered(Result<Orders.PlaceOrder.Reply, ServiceError>)
        case inProgress
    }

    /// The stored result of an earlier request with the key, if any (unexpired); a `conflict`
    /// when that request had another body.
    /// The answer stored under `key` for `request` as sent, if an earlier request with the key
    /// finished (nil when there is none, or it is still running); a `conflict` when it had
    /// another body. An order from a draft asks this before it reads the draft, so a retry
    /// after the draft was changed or deleted answers what the first request answered.
    public func storedAnswer(for request: Orders.PlaceOrder.Request, idempotencyKey key: String, actor: Actor)
        async throws -> Orders.PlaceOrder.Reply?
    {
        let earlier = try await replay(userId: try Self.userId(actor), key: key, hash: try Self.hash(request))
        guard case .answered(let result)? = earlier else { return nil }
        return try result.get()
    }

    func replay(userId: UUID, key: String, hash: String) async throws -> Earlier? {
        let rows = try await client.fetch(
            """
            SELECT request_hash, status, response::text FROM orders.idempotency_keys
            WHERE user_id = \(userId) AND key = \(key) AND expires_at > \(clock.now())
            """, logger: logger)
        for try await (storedHash, status, response) in rows.decode((String, String, String).self) {
            guard storedHash == hash else {
                throw ServiceError(
                    .conflict, "this Idempotency-Key was used with a different request; use a new key",
                    details: ["field": "Idempotency-Key"])
            }
            if status == "pending" { return .inProgress }
            let decoder = Wire.makeDecoder()
            if status == "ok" {
                return .answered(.success(try decoder.decode(Orders.PlaceOrder.Reply.self, from: Data(response.utf8))))
            }
            return .answered(.failure(try decoder.decode(ServiceError.self, from: Data(response.utf8))))
        }
        return nil
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
                guard waited < payments.inFlightWait else {
                    throw inProgress(retryAfter: 2)
                }
                let step = min(pause, payments.inFlightWait - waited)
                try await Task.sleep(for: step)
                waited += step
                pause = min(pause * 2, .milliseconds(200))
            }
        }
    }

    /// The 409 a retry gets while the payment of the order under its key is still running:
    /// `details.reason` is `payment_in_progress`, and `Retry-After` says when to ask again.
    func inProgress(retryAfter: TimeInterval) -> ServiceError {
        ServiceError(
            .conflict, "the payment of the order under this Idempotency-Key is in progress; retry with the same key",
            details: [
                "reason": .string(Self.paymentInProgress),
                "retryAfterSeconds": .number(max(1, retryAfter.rounded(.up))),
            ])
    }

    /// `details.reason` of ``inProgress(retryAfter:)``.
    public static let paymentInProgress = "payment_in_progress"

    /// A usable key: 1 to 255 visible ASCII characters.
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

    /// Checks that the kind matches the details given and every field is usable; normalizes
    /// sizes and country codes to upper case.
    static func content(of request: Orders.PlaceOrder.Request) throws(ServiceError) -> Content {
        let given = [request.postcard != nil, request.ecard != nil, request.gift != nil].filter { $0 }.count
        switch Orders.OrderKind(rawValue: request.kind) {
        case .postcard:
            guard var postcard = request.postcard, given == 1 else {
                throw .invalidArgument("a postcard order has `postcard` and nothing else", field: "postcard")
            }
            postcard.size = postcard.size.uppercased()
            for index in postcard.recipients.indices {
                let field = "postcard.recipients[\(index)]"
                try text(postcard.recipients[index].name, field: "\(field).name")
                try text(postcard.recipients[index].address.line1, field: "\(field).address.line1")
                try text(postcard.recipients[index].address.city, field: "\(field).address.city")
                postcard.recipients[index].address.country = postcard.recipients[index].address.country.uppercased()
            }
            try text(postcard.greeting ?? "-", field: "postcard.greeting", max: 2000)
            _ = try PostcardEdit.list(postcard.edits, field: "postcard.edits")
            return Content(postcard: postcard)
        case .ecard:
            guard var ecard = request.ecard, given == 1 else {
                throw .invalidArgument("an e-card order has `ecard` and nothing else", field: "ecard")
            }
            if let size = ecard.size {
                guard let known = CardSize(named: size) else {
                    throw .invalidArgument("ecard.size is A6, A5 or A4", field: "ecard.size")
                }
                ecard.size = known.rawValue
            }
            if let imageId = ecard.imageId, UUID(uuidString: imageId) == nil {
                throw .invalidArgument("ecard.imageId is an image id (a UUID)", field: "ecard.imageId")
            }
            if let sender = ecard.senderName { try text(sender, field: "ecard.senderName", max: 100) }
            if let delivery = ecard.delivery {
                guard let known = Orders.EcardDelivery(rawValue: delivery.lowercased()) else {
                    throw .invalidArgument("ecard.delivery is email or device", field: "ecard.delivery")
                }
                ecard.delivery = known.rawValue
            }
            _ = try PostcardEdit.list(ecard.edits, field: "ecard.edits")
            for (index, recipient) in ecard.recipients.enumerated() {
                let parts = recipient.email.split(separator: "@")
                guard parts.count == 2, parts[1].contains("."), recipient.email.count <= 254,
                    !recipient.email.contains(where: \.isWhitespace)
                else {
                    throw .invalidArgument("not an e-mail address", field: "ecard.recipients[\(index)].email")
                }
            }
            try text(ecard.greeting ?? "-", field: "ecard.greeting", max: 2000)
            return Content(ecard: ecard)
        case .gift:
            guard let gift = request.gift, given == 1 else {
                throw .invalidArgument("a gift order has `gift` and nothing else", field: "gift")
            }
            // Checked against the catalogue and the friendship later (``resolveGift``); until then
            // the item carries no title and no price.
            return Content(
                gift: Orders.GiftDetails(
                    item: Orders.GiftItem(
                        id: gift.itemId, title: "", unitPrice: Orders.Money(amount: 0, currency: "EUR"),
                        quantity: gift.quantity),
                    recipientKind: gift.friendUserId == nil ? "self" : "friend", friendUserId: gift.friendUserId,
                    message: gift.message, shippingAddress: gift.shippingAddress))
        case nil:
            throw .invalidArgument("kind is postcard, ecard or gift", field: "kind")
        }
    }

    static func text(_ value: String, field: String, max: Int = 200) throws(ServiceError) {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, value.count <= max else {
            throw .invalidArgument("\(field) is 1 to \(max) characters", field: field)
        }
    }

    /// The breakdown of `content` in `currency`.
    func price(_ content: Content, currency: String, rates: ExchangeRates, requestId: String) async throws
        -> PriceBreakdown
    {
        if let postcard = content.postcard {
            let tariff = try await quoting.tariffs.tariff(
                size: postcard.size, countries: postcard.recipients.map(\.address.country),
                metadata: RequestMetadata(requestId: requestId))
            return try quoting.pricing.postcard(
                size: postcard.size, countries: postcard.recipients.map(\.address.country), currency: currency,
                rates: rates, tariff: tariff, sizeField: "postcard.size", recipientsField: "postcard.recipients",
                countryField: { "postcard.recipients[\($0)].address.country" })
        }
        if let ecard = content.ecard {
            return try quoting.pricing.ecard(recipients: ecard.recipients.count, currency: currency, rates: rates)
        }
        if let gift = content.gift { return try quoting.pricing.gift(gift.item, currency: currency, rates: rates) }
        throw ServiceError.invalidArgument("nothing to price", field: "kind")
    }

    /// ``insertPending(_:on:)``'s statement, prepared once per connection: the order, its first
    /// state and its id under the key.
    struct InsertStatement: PostgresPreparedStatement {
        static let sql = """
            WITH new_order AS (
                INSERT INTO orders.orders
                    (id, user_id, kind, state, currency, total_amount, breakdown, details, search_text,
                     payment_method_id, quote_id, created_at, updated_at, payment_due_at, gift_notice)
                VALUES ($1, $2, $3, 'pending_payment', $4, $5, $6::jsonb, $7::jsonb, $8, $9, $10, $11, $11, $12,
                        $13::jsonb)
                RETURNING id
            ), new_state AS (
                INSERT INTO orders.order_states (order_id, seq, state, at)
                SELECT new_order.id, 1, 'pending_payment', $11 FROM new_order
            )
            UPDATE orders.idempotency_keys SET order_id = (SELECT id FROM new_order)
            WHERE user_id = $2 AND key = $14
            """
        static let bindingDataTypes: [PostgresDataType] = [
            .uuid, .uuid, .text, .text, .int8, .text, .text, .text, .uuid, .uuid, .timestamptz, .timestamptz, .text,
            .text,
        ]
        typealias Row = Void

        let order: NewOrder
        let now: Date
        let due: Date
        let breakdown: String
        let details: String
        let giftNotice: String?

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 14)
            bindings.append(order.id)
            bindings.append(order.claim.userId)
            bindings.append(order.kind)
            bindings.append(order.breakdown.total.currency)
            bindings.append(order.breakdown.total.amount)
            bindings.append(breakdown)
            bindings.append(details)
            bindings.append(order.content.searchText)
            bindings.append(order.card?.id)
            bindings.append(order.quoteId)
            bindings.append(now)
            bindings.append(due)
            bindings.append(giftNotice)
            bindings.append(order.claim.key)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws {}
    }
}
