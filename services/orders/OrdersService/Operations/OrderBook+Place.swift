import Contract
import Crypto
import Foundation
import NotifyContract
import OrdersContract
import PostgresNIO
import PrintingContract
import Store

extension OrderBook {
    /// Places an order once per idempotency key: the first request claims the key, prices the
    /// order, authorizes the card and stores its result under the key, all in one transaction;
    /// any later request with the key and the same body gets that result (one in flight at the
    /// same time waits for the first to commit), with another body a `conflict`. A declined card
    /// is a `payment_required` (402) with the reason, and the failed order is kept. A request
    /// that fails validation leaves the key unclaimed. The key comes checked
    /// (``IdempotencyKey/validated(_:)``, by the gateway).
    public func place(_ request: Orders.PlaceOrder.Request, idempotencyKey key: String, actor: Actor, requestId: String)
        async throws -> Orders.PlaceOrder.Reply
    {
        let userId = try Self.userId(actor)
        let hash = try Self.hash(request)
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
        let outcome = try await transaction { connection -> Placed? in
            guard
                let card = try await self.claim(claim, card: UUID(uuidString: request.paymentMethodId), on: connection)
            else { return nil }
            let breakdown = try priced.get()
            guard let card else {
                throw ServiceError(.notFound, "no such payment method", details: ["field": "paymentMethodId"])
            }
            let order = NewOrder(
                id: UUID(), claim: claim, kind: request.kind, content: content, breakdown: breakdown, card: card,
                quoteId: request.quoteId.flatMap(UUID.init(uuidString:)), giftNotice: notice)
            return try await self.insert(order, requestId: requestId, on: connection)
        }
        guard let (result, stored) = outcome else {
            // Another request with the key committed first: answer what it answered.
            guard let earlier = try await replay(userId: userId, key: key, hash: hash) else {
                throw ServiceError(.conflict, "the request with this Idempotency-Key did not finish; retry")
            }
            return try earlier.get()
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
        let card: PaymentMethodStore.Saved
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
        let rows = try await connection.execute(
            ClaimStatement(claim: claim, now: now, expires: now.addingTimeInterval(keyLifetime), cardId: cardId),
            logger: logger)
        for try await (won, id, provider, token, brand, last4, month, year) in rows {
            guard won else { return nil }
            guard let id, let provider, let token, let brand, let last4, let month, let year else { return .some(nil) }
            return PaymentMethodStore.Saved(
                id: id,
                method: Orders.PaymentMethod(
                    id: id.uuidString.lowercased(), brand: brand, last4: last4, expMonth: month, expYear: year),
                provider: provider, token: token)
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
                   pm.id, pm.provider, pm.token, pm.brand, pm.last4, pm.exp_month, pm.exp_year
            FROM (SELECT 1) one
            LEFT JOIN orders.payment_methods pm ON pm.id = $6 AND pm.user_id = $1 AND pm.deleted_at IS NULL
            """
        static let bindingDataTypes: [PostgresDataType] = [.uuid, .text, .text, .timestamptz, .timestamptz, .uuid]
        typealias Row = (Bool, UUID?, String?, String?, String?, String?, Int?, Int?)

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

    /// Authorizes, then writes the order with its states, ledger rows and the result under the
    /// key in one statement, and appends the events.
    func insert(_ order: NewOrder, requestId: String, on connection: PostgresConnection) async throws -> Placed {
        let now = clock.now()
        let userId = order.claim.userId
        let total = order.breakdown.total
        var movements: [Movement] = []
        var authorization: String?
        // Nothing is printed for e-cards and gifts: their money is taken at once.
        let captureNow = Orders.OrderKind(rawValue: order.kind)?.capturedAtOnce ?? true
        var declined: PaymentDeclined?
        do {
            let authorized = try await provider.authorize(
                token: order.card.token, amount: total, idempotencyKey: "authorize:\(userId):\(order.claim.key)")
            authorization = authorized
            movements.append(
                Movement(movement: "authorize", account: "hold", amount: total.amount, reference: authorized))
            if captureNow {
                let capture = try await provider.capture(
                    authorization: authorized, amount: total, idempotencyKey: "capture:\(order.id)")
                movements.append(
                    Movement(movement: "capture", account: "hold", amount: -total.amount, reference: capture))
                movements.append(
                    Movement(movement: "capture", account: "charge", amount: total.amount, reference: capture))
            }
        } catch let refusal as PaymentDeclined {
            declined = refusal
        }
        let state: OrderState = declined == nil ? .paid : .failed
        let orderId = order.id.uuidString.lowercased()
        let result: Result<Orders.PlaceOrder.Reply, ServiceError>
        if let declined {
            var error = declined.serviceError
            error.details?["orderId"] = .string(orderId)
            result = .failure(error)
        } else {
            result = .success(Orders.PlaceOrder.Reply(id: orderId, state: state.rawValue, total: total))
        }

        let encoder = Wire.makeEncoder()
        let breakdown = String(decoding: try encoder.encode(order.breakdown), as: UTF8.self)
        let details = String(decoding: try encoder.encode(order.content), as: UTF8.self)
        let (status, response): (String, Data) =
            switch result {
            case .success(let reply): ("ok", try encoder.encode(reply))
            case .failure(let error): (error.code.rawValue, try encoder.encode(error))
            }
        let states = [OrderState.pendingPayment.rawValue, state.rawValue]
        let rows = try await connection.execute(
            InsertStatement(
                order: order, state: state.rawValue, now: now, authorization: authorization,
                captured: captureNow && authorization != nil, declinedReason: declined?.reason, states: states,
                breakdown: breakdown, details: details, provider: provider.name, movements: movements,
                status: status, response: String(decoding: response, as: UTF8.self)),
            logger: logger)
        for try await _ in rows {}

        let event = Orders.OrderEvent(
            orderId: orderId, userId: userId.uuidString.lowercased(), kind: order.kind,
            from: OrderState.pendingPayment.rawValue, state: state.rawValue, at: now, reason: declined?.reason,
            total: total)
        // The outcome (with the content, for printing), the state change and the customer's
        // notice (notify's `order_succeeded` / `order_failed`), in one statement.
        let user = userId.uuidString.lowercased()
        var outcome = event
        let notice: (topic: String, payload: any Encodable)
        if let declined {
            notice = (
                Notify.OrderFailed.topic, Notify.OrderFailed(userId: user, orderId: orderId, reason: declined.message)
            )
        } else {
            outcome.postcard = order.content.postcard
            outcome.ecard = order.content.ecard
            notice = (Notify.OrderSucceeded.topic, Notify.OrderSucceeded(userId: user, orderId: orderId))
        }
        var appended: [(topic: String, payload: any Encodable)] = [
            (declined == nil ? Orders.Topic.paid : Orders.Topic.paymentFailed, outcome),
            (Orders.Topic.stateChanged, event), notice,
        ]
        if declined == nil, let gift = order.giftNotice { appended.append((Orders.GiftReceived.topic, gift)) }
        let stored = try await events.append(appended, requestId: requestId, on: connection, logger: logger)
        return (result, stored)
    }

    /// The stored result of an earlier request with the key, if any (unexpired); a `conflict`
    /// when that request had another body.
    func replay(userId: UUID, key: String, hash: String) async throws -> Result<Orders.PlaceOrder.Reply, ServiceError>?
    {
        let rows = try await client.query(
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
            let decoder = Wire.makeDecoder()
            if status == "ok" {
                return .success(try decoder.decode(Orders.PlaceOrder.Reply.self, from: Data(response.utf8)))
            }
            return .failure(try decoder.decode(ServiceError.self, from: Data(response.utf8)))
        }
        return nil
    }

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

    /// ``insert(_:requestId:on:)``'s statement, prepared once per connection: the order, its two
    /// states, its ledger rows and the result under the key.
    struct InsertStatement: PostgresPreparedStatement {
        static let sql = """
            WITH new_order AS (
                INSERT INTO orders.orders
                    (id, user_id, kind, state, currency, total_amount, breakdown, details, search_text,
                     payment_method_id, authorization_id, captured, quote_id, created_at, updated_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10, $11, $12, $13, $14, $14)
                RETURNING id
            ), new_states AS (
                INSERT INTO orders.order_states (order_id, seq, state, at, reason)
                SELECT new_order.id, s.position, s.state, $14, CASE WHEN s.position = 2 THEN $15 END
                FROM new_order, unnest($16::text[]) WITH ORDINALITY AS s(state, position)
            ), new_ledger AS (
                INSERT INTO orders.ledger
                    (order_id, user_id, movement, account, amount, currency, provider, provider_ref, created_at)
                SELECT new_order.id, $2, m.movement, m.account, m.amount, $5, $17, m.reference, $14
                FROM new_order,
                     unnest($18::text[], $19::text[], $20::bigint[], $21::text[])
                     WITH ORDINALITY AS m(movement, account, amount, reference, position)
                ORDER BY m.position
            )
            UPDATE orders.idempotency_keys
            SET order_id = (SELECT id FROM new_order), status = $22, response = $23::jsonb
            WHERE user_id = $2 AND key = $24
            """
        static let bindingDataTypes: [PostgresDataType] = [
            .uuid, .uuid, .text, .text, .text, .int8, .text, .text, .text, .uuid, .text, .bool, .uuid, .timestamptz,
            .text, .textArray, .text, .textArray, .textArray, .int8Array, .textArray, .text, .text, .text,
        ]
        typealias Row = Void

        let order: NewOrder
        let state: String
        let now: Date
        let authorization: String?
        let captured: Bool
        let declinedReason: String?
        let states: [String]
        let breakdown: String
        let details: String
        let provider: String
        let movements: [Movement]
        let status: String
        let response: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 24)
            bindings.append(order.id)
            bindings.append(order.claim.userId)
            bindings.append(order.kind)
            bindings.append(state)
            bindings.append(order.breakdown.total.currency)
            bindings.append(order.breakdown.total.amount)
            bindings.append(breakdown)
            bindings.append(details)
            bindings.append(order.content.searchText)
            bindings.append(order.card.id)
            bindings.append(authorization)
            bindings.append(captured)
            bindings.append(order.quoteId)
            bindings.append(now)
            bindings.append(declinedReason)
            bindings.append(states)
            bindings.append(provider)
            bindings.append(movements.map(\.movement))
            bindings.append(movements.map(\.account))
            bindings.append(movements.map(\.amount))
            bindings.append(movements.map(\.reference))
            bindings.append(status)
            bindings.append(response)
            bindings.append(order.claim.key)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws {}
    }
}
