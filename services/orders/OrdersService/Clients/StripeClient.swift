import AsyncHTTPClient
import CommonContract
import Contract
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Store

/// Stripe's PaymentIntents API (`PAYMENT_PROVIDER=stripe`): a saved card is a Stripe
/// PaymentMethod (`pm_...`, made by the app's client-side tokenization); an authorization is a
/// PaymentIntent confirmed at once, with manual capture for postcards (captured when printing
/// starts, canceled on a void) and automatic capture for e-cards and gifts
/// (``authorizeAndCapture(token:amount:idempotencyKey:)``); refunds are Refunds.
///
/// Every POST is form-encoded and carries `Idempotency-Key` (the key derived from the order);
/// a timeout, a connection failure, a 409 (the same key still running at Stripe) or a 5xx is
/// retried with the same key up to ``Settings/retries`` times, then thrown as
/// ``StripeUnavailable`` (the order is left to the recovery sweeper). Card errors become
/// ``PaymentDeclined`` with our `payment_required` reasons; `requires_action` (3-D Secure)
/// becomes a decline with reason `authentication_required` that carries the PaymentIntent and
/// its client secret. The API key is never logged.
public struct StripeClient: PaymentProvider {
    public let name = "stripe"

    /// Where Stripe is and how long to wait for it.
    public struct Settings: Sendable {
        /// The secret key (`sk_...`), sent as a bearer token.
        public var apiKey: String
        /// `https://api.stripe.com`, or the stand-in's address.
        public var baseURL: String
        /// How long one request may take.
        public var timeout: Duration
        /// Further attempts after a timeout or a 5xx, with the same idempotency key.
        public var retries: Int

        /// Settings.
        public init(apiKey: String, baseURL: String, timeout: Duration = .seconds(10), retries: Int = 2) {
            self.apiKey = apiKey
            self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            self.timeout = timeout
            self.retries = retries
        }
    }

    let settings: Settings
    let http: HTTPClient
    let logger: Logger

    /// A client for Stripe that keeps up to `connections` HTTP/1.1 connections open to it. Each
    /// call holds one for the processor's answer (hundreds of milliseconds), so the shared
    /// client's 8 per host would cap orders near 8 / 0.3 s = 26 calls a second. Kept for the
    /// life of the process.
    public static func httpClient(connections: Int) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The adapter, on `http` (the shared client by default).
    public init(settings: Settings, http: HTTPClient = .shared, logger: Logger) {
        self.settings = settings
        self.http = http
        self.logger = logger
    }

    /// The card numbers of a processor's test mode, mapped to Stripe's test PaymentMethods, so
    /// that the app's flows (and the system tests) work against test keys and the stand-in. Any
    /// other number is refused: in this mode the app tokenizes cards itself.
    static let testMethods: [String: String] = [
        "4242424242424242": "pm_card_visa",
        "4000000000000002": "pm_card_chargeDeclined",
        "4000000000009995": "pm_card_chargeDeclinedInsufficientFunds",
        "4000000000000069": "pm_card_chargeDeclinedExpiredCard",
        "4000000000000119": "pm_card_chargeDeclinedProcessingError",
        "4000002760003184": "pm_card_authenticationRequired",
    ]

    public func tokenize(_ card: CardDetails, now: Date) async throws -> TokenizedCard {
        try card.validate(now: now)
        guard let method = Self.testMethods[card.number] else {
            throw ServiceError(
                .invalidArgument,
                "with the stripe provider cards are tokenized by the app; only the test cards can be added here",
                details: ["field": "number"])
        }
        return TokenizedCard(
            token: method, brand: CardDetails.brand(card.number), last4: card.last4, expMonth: card.expMonth,
            expYear: card.expYear)
    }

    /// A PaymentMethod the app made with Stripe's SDK: `GET /v1/payment_methods/{id}` for its
    /// card. An unknown id is 404 naming `paymentMethodId`; not a card, or an expired one, 400.
    public func retrieveTokenized(_ id: String, now: Date) async throws -> TokenizedCard {
        guard id.hasPrefix("pm_"), id.count <= 255,
            id.utf8.allSatisfy({
                $0 == UInt8(ascii: "_") || (48...57).contains($0) || (65...90).contains($0)
                    || (97...122).contains($0)
            })
        else {
            throw ServiceError(
                .invalidArgument, "paymentMethodId is a Stripe PaymentMethod id (pm_...)",
                details: ["field": "paymentMethodId"])
        }
        let method: StripePaymentMethod
        do {
            method = try await send(method: .GET, path: "/v1/payment_methods/\(id)", form: nil, idempotencyKey: nil)
        } catch let failure as StripeRequestFailure where failure.status == 404 {
            throw ServiceError(
                .notFound, "Stripe knows no such PaymentMethod", details: ["field": "paymentMethodId"])
        } catch is StripeUnavailable {
            throw ServiceError(
                .unavailable, "Stripe did not answer; try again", details: ["retryAfterSeconds": .number(5)])
        }
        guard let card = method.card, let brand = card.brand, let last4 = card.last4 else {
            throw ServiceError(
                .invalidArgument, "the PaymentMethod is not a card", details: ["field": "paymentMethodId"])
        }
        let today = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: now)
        if (card.expYear, card.expMonth) < (today.year ?? 0, today.month ?? 0) {
            throw ServiceError(.invalidArgument, "the card has expired", details: ["field": "paymentMethodId"])
        }
        return TokenizedCard(
            token: method.id, brand: brand, last4: last4, expMonth: card.expMonth, expYear: card.expYear)
    }

    public func authorize(token: String, amount: Money, idempotencyKey: String) async throws -> String {
        try await authorize(token: token, customer: nil, amount: amount, idempotencyKey: idempotencyKey)
    }

    public func authorizeAndCapture(token: String, amount: Money, idempotencyKey: String) async throws -> String? {
        try await authorizeAndCapture(token: token, customer: nil, amount: amount, idempotencyKey: idempotencyKey)
    }

    public func authorize(token: String, customer: String?, amount: Money, idempotencyKey: String) async throws
        -> String
    {
        try await createIntent(
            token: token, customer: customer, amount: amount, capture: "manual", idempotencyKey: idempotencyKey)
    }

    public func authorizeAndCapture(token: String, customer: String?, amount: Money, idempotencyKey: String)
        async throws -> String?
    {
        try await createIntent(
            token: token, customer: customer, amount: amount, capture: "automatic", idempotencyKey: idempotencyKey)
    }

    // MARK: customers

    /// Stripe refuses a second payment with a PaymentMethod that is not attached to a Customer,
    /// so every saved card is attached to its user's Customer.
    public var usesCustomers: Bool { true }

    /// The user's Customer: the one whose `metadata[backplane_user]` is the user (Stripe's
    /// search), else a new one, made with the key `backplane-customer-<user>`, so a repeat after
    /// a lost answer or a crash gets the same Customer back from Stripe. No e-mail or name is
    /// sent.
    public func customer(for userId: UUID) async throws -> String? {
        let user = userId.uuidString.lowercased()
        do {
            let found: StripeSearch = try await send(
                method: .GET,
                path: "/v1/customers/search?query=" + Self.formEscape("metadata['backplane_user']:'\(user)'"),
                form: nil, idempotencyKey: nil)
            if let known = found.data.first { return known.id }
            return try await post(
                "/v1/customers", ["metadata[backplane_user]": user], idempotencyKey: Self.customerKey(userId)
            ).id
        } catch is StripeUnavailable {
            throw Self.unavailable
        }
    }

    /// `POST /v1/payment_methods/{pm}/attach`, keyed by card and customer. Stripe answers the
    /// PaymentMethod attached (a test PaymentMethod such as `pm_card_visa` is copied into a new
    /// one, whose id is returned). A PaymentMethod spent by a payment without a Customer, or
    /// attached to another Customer, is refused for good: a ``PaymentDeclined``
    /// (`card_declined`) asking for the card again.
    public func attach(token: String, customer: String) async throws -> String {
        do {
            let method: StripePaymentMethod = try await send(
                method: .POST, path: "/v1/payment_methods/\(token)/attach", form: ["customer": customer],
                idempotencyKey: "backplane-attach-\(token)-\(customer)")
            return method.id
        } catch let failure as StripeRequestFailure where failure.isFinal {
            logger.notice(
                "Stripe refused to attach a saved card to its customer",
                metadata: ["code": "\(failure.code ?? "")", "status": "\(failure.status)"])
            throw Self.spentCard
        } catch is StripeUnavailable {
            throw Self.unavailable
        }
    }

    /// The idempotency key of the user's Customer.
    static func customerKey(_ userId: UUID) -> String { "backplane-customer-\(userId.uuidString.lowercased())" }

    /// A card Stripe will no longer charge: it paid once without a Customer (saved before cards
    /// were attached) or belongs to another Customer.
    static let spentCard = PaymentDeclined(
        reason: "card_declined",
        message: "this saved card can no longer be charged; add the card again (a new card entry) and pay with that")

    static let unavailable = ServiceError(
        .unavailable, "Stripe did not answer; try again", details: ["retryAfterSeconds": .number(5)])

    public func capture(authorization: String, amount: Money, idempotencyKey: String) async throws -> String {
        do {
            let intent = try await post(
                "/v1/payment_intents/\(authorization)/capture", ["amount_to_capture": "\(amount.amount)"],
                idempotencyKey: idempotencyKey)
            return intent.id
        } catch let failure as StripeRequestFailure where failure.code == "payment_intent_unexpected_state" {
            // Captured already (automatic capture, or an earlier capture whose answer was lost).
            let intent = try await get("/v1/payment_intents/\(authorization)")
            if intent.status == "succeeded" { return intent.id }
            throw PaymentDeclined(reason: "card_declined", message: "the payment can no longer be captured")
        } catch let failure as StripeRequestFailure where failure.isFinal {
            throw PaymentDeclined(reason: "processing_error", message: "Stripe refused the capture: \(failure.message)")
        }
    }

    public func void(authorization: String, idempotencyKey: String) async throws -> String {
        do {
            return try await post("/v1/payment_intents/\(authorization)/cancel", [:], idempotencyKey: idempotencyKey).id
        } catch let failure as StripeRequestFailure where failure.code == "payment_intent_unexpected_state" {
            let intent = try await get("/v1/payment_intents/\(authorization)")
            if intent.status == "canceled" { return intent.id }
            throw failure
        }
    }

    public func refund(authorization: String, amount: Money, idempotencyKey: String) async throws -> String {
        do {
            let refund = try await post(
                "/v1/refunds",
                [
                    "payment_intent": authorization, "amount": "\(amount.amount)",
                    "metadata[backplane_key]": idempotencyKey,
                ], idempotencyKey: idempotencyKey)
            if refund.status == "failed" || refund.status == "canceled" {
                throw PaymentDeclined(reason: "processing_error", message: "Stripe could not make the refund")
            }
            return refund.id
        } catch let failure as StripeRequestFailure where failure.isFinal {
            throw PaymentDeclined(reason: "processing_error", message: "Stripe refused the refund: \(failure.message)")
        }
    }

    /// What Stripe did for a refund key: the Refund of `authorization` made with it (found by its
    /// `metadata[backplane_key]` among the PaymentIntent's refunds), if any.
    public func refundOutcome(authorization: String, idempotencyKey: String) async throws -> PaymentOutcome? {
        let found: StripeSearch = try await send(
            method: .GET, path: "/v1/refunds?limit=100&payment_intent=" + Self.formEscape(authorization), form: nil,
            idempotencyKey: nil)
        guard let refund = found.data.first(where: { $0.metadata?["backplane_key"] == idempotencyKey }) else {
            return nil
        }
        switch refund.status {
        case "failed", "canceled":
            return .declined(PaymentDeclined(reason: "processing_error", message: "Stripe could not make the refund"))
        default:
            return .succeeded(reference: refund.id)
        }
    }

    /// What Stripe did for an authorization key: the PaymentIntent created with it (found by
    /// its `metadata[backplane_key]`), if any. Only authorization keys are looked up; the
    /// other calls are repeated with their key instead, which Stripe answers with the first
    /// result.
    public func outcome(of idempotencyKey: String) async throws -> PaymentOutcome? {
        let query = "metadata['backplane_key']:'\(idempotencyKey)'"
        let found: StripeSearch = try await send(
            method: .GET,
            path: "/v1/payment_intents/search?query=" + Self.formEscape(query), form: nil, idempotencyKey: nil)
        guard let intent = found.data.first else { return nil }
        switch intent.status {
        case "requires_capture", "succeeded", "processing":
            return .succeeded(reference: intent.id)
        case "requires_action":
            return .declined(Self.needsAction(intent))
        default:
            return .declined(Self.declined(intent.lastPaymentError))
        }
    }

    // MARK: requests

    func createIntent(token: String, customer: String?, amount: Money, capture: String, idempotencyKey: String)
        async throws -> String
    {
        var form = [
            "amount": "\(amount.amount)", "currency": amount.currency.lowercased(), "payment_method": token,
            "confirm": "true", "capture_method": capture, "metadata[backplane_key]": idempotencyKey,
        ]
        if let customer { form["customer"] = customer }
        let intent: StripeObject
        do {
            intent = try await post("/v1/payment_intents", form, idempotencyKey: idempotencyKey)
        } catch let failure as StripeRequestFailure where failure.code == "payment_method_unexpected_state" {
            // A PaymentMethod spent without a Customer, or not this customer's.
            throw Self.spentCard
        }
        switch intent.status {
        case "requires_capture", "succeeded", "processing": return intent.id
        case "requires_action": throw Self.needsAction(intent)
        default: throw Self.declined(intent.lastPaymentError)
        }
    }

    func post(_ path: String, _ form: [String: String], idempotencyKey: String) async throws -> StripeObject {
        try await send(method: .POST, path: path, form: form, idempotencyKey: idempotencyKey)
    }

    func get(_ path: String) async throws -> StripeObject {
        try await send(method: .GET, path: path, form: nil, idempotencyKey: nil)
    }

    /// One call, retried with the same idempotency key after a timeout, a connection failure,
    /// a 409 or a 5xx.
    func send<Answer: Decodable>(
        method: HTTPMethod, path: String, form: [String: String]?, idempotencyKey: String?
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: settings.baseURL + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(settings.apiKey)")
        if let idempotencyKey { request.headers.add(name: "Idempotency-Key", value: idempotencyKey) }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            let body = form.sorted { $0.key < $1.key }.map { "\(Self.formEscape($0.key))=\(Self.formEscape($0.value))" }
            request.body = .bytes(ByteBuffer(string: body.joined(separator: "&")))
        }
        var attempt = 0
        while true {
            attempt += 1
            let status: Int
            let data: Data
            do {
                let response = try await http.execute(request, timeout: .nanoseconds(settings.timeout.nanoseconds))
                status = Int(response.status.code)
                data = Data(buffer: try await response.body.collect(upTo: 1 << 20))
            } catch {
                guard attempt <= settings.retries else {
                    throw StripeUnavailable(message: "no answer from Stripe for \(method) \(Self.route(path))")
                }
                logger.warning(
                    "Stripe did not answer; retrying with the same idempotency key",
                    metadata: ["route": "\(Self.route(path))", "attempt": "\(attempt)"])
                try await Task.sleep(for: .milliseconds(100 * attempt))
                continue
            }
            if (200..<300).contains(status) { return try JSONDecoder().decode(Answer.self, from: data) }
            if status == 409 || status == 429 || status >= 500 {
                guard attempt <= settings.retries else {
                    throw StripeUnavailable(message: "Stripe answered \(status) for \(method) \(Self.route(path))")
                }
                logger.warning(
                    "Stripe answered an error worth retrying; retrying with the same idempotency key",
                    metadata: ["route": "\(Self.route(path))", "status": "\(status)", "attempt": "\(attempt)"])
                try await Task.sleep(for: .milliseconds(100 * attempt))
                continue
            }
            let error = (try? JSONDecoder().decode(StripeErrorBody.self, from: data))?.error
            if status == 402, let error { throw Self.declined(error) }
            throw StripeRequestFailure(status: status, code: error?.code, message: error?.message ?? "HTTP \(status)")
        }
    }

    /// The path with ids replaced, for logs.
    static func route(_ path: String) -> String {
        path.split(separator: "?").first.map { part in
            part.split(separator: "/").map {
                $0.hasPrefix("pi_") || $0.hasPrefix("pm_") || $0.hasPrefix("cus_") ? "{id}" : String($0)
            }.joined(separator: "/")
        } ?? path
    }

    static func formEscape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    // MARK: errors

    /// Our decline for Stripe's card error.
    static func declined(_ error: StripeErrorBody.Detail?) -> PaymentDeclined {
        let reason = StripeDeclineReasons.reason(code: error?.code, declineCode: error?.declineCode)
        return PaymentDeclined(
            reason: reason,
            message: SandboxPaymentClient.messages[reason] ?? error?.message ?? "the card was declined")
    }

    /// The decline of a PaymentIntent waiting for 3-D Secure, with what the app needs to finish it.
    static func needsAction(_ intent: StripeObject) -> PaymentDeclined {
        PaymentDeclined(
            reason: StripeDeclineReasons.authenticationRequired,
            message: "the card needs the buyer to confirm the payment (3-D Secure)", pendingAuthorization: intent.id,
            clientSecret: intent.clientSecret)
    }
}

/// Stripe gave no usable answer (timeouts, 5xx, 409 after the retries): the outcome is unknown.
public struct StripeUnavailable: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Stripe refused a request for a reason that is not the card's (a 4xx other than 402).
public struct StripeRequestFailure: Error, Sendable, CustomStringConvertible {
    public let status: Int
    public let code: String?
    public let message: String
    public var description: String { "Stripe \(status) \(code ?? "")" }
    /// A refusal of the request itself (400, 404): repeating it gets the same answer. A 401 or
    /// 403 is our configuration (the key), not the payment's, so it is not final.
    public var isFinal: Bool { status == 400 || status == 404 }
}

/// The members of Stripe objects (PaymentIntent, Refund, PaymentMethod) that orders reads.
struct StripeObject: Decodable, Sendable {
    let id: String
    let status: String?
    let clientSecret: String?
    let lastPaymentError: StripeErrorBody.Detail?
    let metadata: [String: String]?

    enum CodingKeys: String, CodingKey {
        case id, status, metadata
        case clientSecret = "client_secret"
        case lastPaymentError = "last_payment_error"
    }
}

/// A PaymentMethod: the card's brand, last four digits and expiry.
struct StripePaymentMethod: Decodable, Sendable {
    struct Card: Decodable, Sendable {
        let brand: String?
        let last4: String?
        let expMonth: Int
        let expYear: Int

        enum CodingKeys: String, CodingKey {
            case brand, last4
            case expMonth = "exp_month"
            case expYear = "exp_year"
        }
    }

    let id: String
    let card: Card?
}

/// A search or list page.
struct StripeSearch: Decodable, Sendable {
    let data: [StripeObject]
}

/// Stripe's error body.
struct StripeErrorBody: Decodable, Sendable {
    struct Detail: Decodable, Sendable {
        let type: String?
        let code: String?
        let declineCode: String?
        let message: String?

        enum CodingKeys: String, CodingKey {
            case type, code, message
            case declineCode = "decline_code"
        }
    }

    let error: Detail
}
