import Contract
import Crypto
import Foundation
import PostgresNIO
import Store

extension OrderBook {
    /// Places an order once per idempotency key: the first request prices it, authorizes the
    /// card and stores its result under the key; any later request with the key and the same
    /// body gets that result (also while the first is in flight: it waits for it), with another
    /// body a `conflict`. A declined card is a `payment_required` (402) with the reason, and
    /// the failed order is kept.
    public func place(_ request: Orders.PlaceOrder.Request, actor: Actor, requestId: String) async throws
        -> Orders.PlaceOrder.Reply
    {
        let userId = try Self.userId(actor)
        let key = try Self.checkKey(request.idempotencyKey)
        let hash = try Self.hash(request)
        if let earlier = try await replay(userId: userId, key: key, hash: hash) { return try earlier.get() }

        let currency = try Quoting.currency(request.currency)
        let content = try Self.content(of: request)
        let set =
            if let quoteId = request.quoteId {
                try await quoting.quotedRates(quoteId, userId: userId, currency: currency)
            } else {
                try await quoting.currentRates()
            }
        let breakdown = try await price(content, currency: currency, rates: set.rates, requestId: requestId)
        guard let methodId = UUID(uuidString: request.paymentMethodId),
            let card = try await cards.get(methodId, userId: userId)
        else {
            throw ServiceError(.notFound, "no such payment method", details: ["field": "paymentMethodId"])
        }
        let order = NewOrder(
            id: UUID(), userId: userId, key: key, hash: hash, kind: request.kind, content: content,
            breakdown: breakdown, card: card, quoteId: request.quoteId.flatMap(UUID.init(uuidString:)))

        let outcome = try await transaction { connection in
            try await self.insert(order, requestId: requestId, on: connection)
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

    /// An order about to be written.
    struct NewOrder: Sendable {
        let id: UUID
        let userId: UUID
        let key: String
        let hash: String
        let kind: String
        let content: Content
        let breakdown: PriceBreakdown
        let card: PaymentMethodStore.Saved
        let quoteId: UUID?
    }

    /// Claims the key (or takes over an expired one), authorizes, writes the order with its
    /// states, ledger rows and events, and records the outcome under the key; nil when the key
    /// is held by a request that committed first.
    func insert(_ order: NewOrder, requestId: String, on connection: PostgresConnection) async throws
        -> (Result<Orders.PlaceOrder.Reply, ServiceError>, [StoredEvent])?
    {
        let now = clock.now()
        let claimed = try await connection.query(
            """
            INSERT INTO orders.idempotency_keys (user_id, key, request_hash, status, response, created_at, expires_at)
            VALUES (\(order.userId), \(order.key), \(order.hash), 'pending', '{}', \(now),
                    \(now.addingTimeInterval(keyLifetime)))
            ON CONFLICT (user_id, key) DO UPDATE
                SET request_hash = excluded.request_hash, status = 'pending', response = '{}', order_id = NULL,
                    created_at = excluded.created_at, expires_at = excluded.expires_at
                WHERE orders.idempotency_keys.expires_at <= \(now)
            RETURNING 1
            """, logger: logger)
        var won = false
        for try await _ in claimed.decode(Int.self) { won = true }
        guard won else { return nil }

        let total = order.breakdown.total
        var movements: [Movement] = []
        var authorization: String?
        // Nothing is printed for e-cards and gifts: their money is taken at once.
        let captureNow = order.kind != "postcard"
        let outcome: Result<String, PaymentDeclined>
        do {
            let authorized = try await provider.authorize(
                token: order.card.token, amount: total, idempotencyKey: "authorize:\(order.userId):\(order.key)")
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
            outcome = .success(authorized)
        } catch let declined as PaymentDeclined {
            outcome = .failure(declined)
        }
        let state: OrderState = authorization == nil ? .failed : .paid
        let reason: String? = if case .failure(let declined) = outcome { declined.reason } else { nil }

        let encoder = Wire.makeEncoder()
        let breakdown = String(decoding: try encoder.encode(order.breakdown), as: UTF8.self)
        let details = String(decoding: try encoder.encode(order.content), as: UTF8.self)
        try await connection.query(
            """
            INSERT INTO orders.orders
                (id, user_id, kind, state, currency, total_amount, breakdown, details, search_text,
                 payment_method_id, authorization_id, captured, quote_id, created_at, updated_at)
            VALUES (\(order.id), \(order.userId), \(order.kind), \(state.rawValue), \(total.currency), \(total.amount),
                    \(breakdown)::jsonb, \(details)::jsonb, \(order.content.searchText), \(order.card.id),
                    \(authorization), \(captureNow && authorization != nil), \(order.quoteId), \(now), \(now))
            """, logger: logger)
        try await recordStates([(.pendingPayment, nil), (state, reason)], order: order.id, at: now, on: connection)
        try await ledger(
            movements, order: order.id, user: order.userId, currency: total.currency, at: now, on: connection)

        let orderId = order.id.uuidString.lowercased()
        var event = Orders.OrderEvent(
            orderId: orderId, userId: order.userId.uuidString.lowercased(), kind: order.kind,
            from: OrderState.pendingPayment.rawValue, state: state.rawValue, at: now, reason: reason, total: total)
        var stored: [StoredEvent] = []
        let result: Result<Orders.PlaceOrder.Reply, ServiceError>
        switch outcome {
        case .success:
            var paid = event
            paid.postcard = order.content.postcard
            paid.ecard = order.content.ecard
            stored.append(try await append(Orders.Topic.paid, paid, requestId: requestId, on: connection))
            result = .success(Orders.PlaceOrder.Reply(id: orderId, state: state.rawValue, total: total))
        case .failure(let declined):
            stored.append(try await append(Orders.Topic.paymentFailed, event, requestId: requestId, on: connection))
            var error = declined.serviceError
            error.details?["orderId"] = .string(orderId)
            result = .failure(error)
        }
        event.postcard = nil
        stored.append(try await append(Orders.Topic.stateChanged, event, requestId: requestId, on: connection))

        let (status, response): (String, Data) =
            switch result {
            case .success(let reply): ("ok", try encoder.encode(reply))
            case .failure(let error): (error.code.rawValue, try encoder.encode(error))
            }
        try await connection.query(
            """
            UPDATE orders.idempotency_keys
            SET order_id = \(order.id), status = \(status), response = \(String(decoding: response, as: UTF8.self))::jsonb
            WHERE user_id = \(order.userId) AND key = \(order.key)
            """, logger: logger)
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
    static func checkKey(_ key: String) throws(ServiceError) -> String {
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else {
            throw ServiceError.invalidArgument(
                "send an Idempotency-Key header of 1 to 255 visible ASCII characters (a UUID is best)",
                field: "Idempotency-Key")
        }
        return key
    }

    /// SHA-256 of the request without its key, in the contract's canonical JSON (sorted keys).
    static func hash(_ request: Orders.PlaceOrder.Request) throws -> String {
        var request = request
        request.idempotencyKey = ""
        return SHA256.hash(data: try Wire.makeEncoder().encode(request)).map { String(format: "%02x", $0) }.joined()
    }

    /// Checks that the kind matches the details given and every field is usable; normalizes
    /// sizes and country codes to upper case.
    static func content(of request: Orders.PlaceOrder.Request) throws(ServiceError) -> Content {
        let given = [request.postcard != nil, request.ecard != nil, request.gift != nil].filter { $0 }.count
        switch request.kind {
        case "postcard":
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
            return Content(postcard: postcard)
        case "ecard":
            guard let ecard = request.ecard, given == 1 else {
                throw .invalidArgument("an e-card order has `ecard` and nothing else", field: "ecard")
            }
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
        case "gift":
            guard var gift = request.gift, given == 1 else {
                throw .invalidArgument("a gift order has `gift` and nothing else", field: "gift")
            }
            try text(gift.item.id, field: "gift.item.id")
            try text(gift.item.title, field: "gift.item.title")
            gift.item.unitPrice.currency = try Quoting.currency(
                gift.item.unitPrice.currency, field: "gift.item.unitPrice.currency")
            switch gift.recipientKind {
            case "self": break
            case "friend":
                guard gift.friendUserId != nil || gift.friendName != nil else {
                    throw .invalidArgument("a gift for a friend names the friend", field: "gift.friendUserId")
                }
            default: throw .invalidArgument("recipientKind is self or friend", field: "gift.recipientKind")
            }
            return Content(gift: gift)
        default:
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
            let tariff = try await quoting.tariffs.activeTariff(metadata: RequestMetadata(requestId: requestId))
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
}
