import CommonContract
import Contract
import Foundation

/// A card as a provider keeps it for us: a token, never the number.
public struct TokenizedCard: Sendable, Hashable {
    /// The provider's reference to the card.
    public let token: String
    public let brand: String
    public let last4: String
    public let expMonth: Int
    public let expYear: Int
}

/// Why a provider refused to move money.
public struct PaymentDeclined: Error, Sendable, Hashable {
    /// A machine-readable reason: `card_declined`, `insufficient_funds`, `expired_card`,
    /// `processing_error`, `authentication_required`.
    public let reason: String
    /// A sentence for the user.
    public let message: String
    /// For `authentication_required` (3-D Secure): the provider's payment still waiting for the
    /// buyer, which finishes or is canceled later.
    public let pendingAuthorization: String?
    /// For `authentication_required`: what the app needs to run the buyer's step (Stripe's
    /// PaymentIntent client secret). Goes to the buyer only, never to a log.
    public let clientSecret: String?

    /// Creates a decline.
    public init(reason: String, message: String, pendingAuthorization: String? = nil, clientSecret: String? = nil) {
        self.reason = reason
        self.message = message
        self.pendingAuthorization = pendingAuthorization
        self.clientSecret = clientSecret
    }

    /// The contract error (HTTP 402) with the reason in `details.reason` (and, for 3-D Secure,
    /// the client secret in `details.clientSecret`).
    public var serviceError: ServiceError {
        var details: [String: JSONValue] = ["reason": .string(reason)]
        if let clientSecret { details["clientSecret"] = .string(clientSecret) }
        return ServiceError(.paymentRequired, message, details: details)
    }
}

/// A card processor: tokenize a card, authorize (hold) an amount, capture, void or refund it.
///
/// Every call that moves money takes an idempotency key, so a retry after a crash never moves
/// it twice.
public protocol PaymentProvider: Sendable {
    /// Short name for logs and ledger rows, e.g. `sandbox`.
    var name: String { get }
    /// Validates `card` and returns a token for it; `invalid_argument` naming the field.
    func tokenize(_ card: CardDetails, now: Date) async throws -> TokenizedCard
    /// Holds `amount` on the card; throws ``PaymentDeclined`` when the card is refused.
    /// Returns the authorization id.
    func authorize(token: String, amount: Money, idempotencyKey: String) async throws -> String
    /// Takes the held money; returns the capture id.
    func capture(authorization: String, amount: Money, idempotencyKey: String) async throws -> String
    /// Releases a hold that was never captured.
    func void(authorization: String, idempotencyKey: String) async throws -> String
    /// Gives captured money back; returns the refund id.
    func refund(authorization: String, amount: Money, idempotencyKey: String) async throws -> String
    /// What the provider did for a call made with `idempotencyKey`: its result, or nil when it
    /// never received one (the recovery sweeper asks this after a crash or a timeout).
    func outcome(of idempotencyKey: String) async throws -> PaymentOutcome?
    /// Authorizes and captures in one call where the provider can (automatic capture, for
    /// e-cards and gifts); nil when it cannot, and the caller authorizes, then captures.
    func authorizeAndCapture(token: String, amount: Money, idempotencyKey: String) async throws -> String?
    /// A card the app tokenized with the provider's SDK (client-side tokenization), by the
    /// provider's id: its brand, last four digits and expiry, asked of the provider. Providers
    /// that tokenize on the server answer `failed_precondition`.
    func retrieveTokenized(_ id: String, now: Date) async throws -> TokenizedCard
    /// What the provider did for a refund of `authorization` made with `idempotencyKey`: its
    /// result, or nil when it never received it (the refund sweeper asks this).
    func refundOutcome(authorization: String, idempotencyKey: String) async throws -> PaymentOutcome?

    /// Whether a saved card must be attached to a customer of the provider before it can pay
    /// more than once (Stripe: a PaymentMethod used without a Customer is spent). When true,
    /// the payment-method handler calls ``customer(for:)`` and ``attach(token:customer:)``
    /// before it keeps a card, and every payment with the card names its customer.
    var usesCustomers: Bool { get }
    /// The provider's customer for `userId`, found or made (the same user always gets the same
    /// one: a repeat after a crash makes no second). Nil when the provider has no customers.
    func customer(for userId: UUID) async throws -> String?
    /// Attaches the card `token` to `customer` so that it can be charged again and again;
    /// returns the token to keep (a processor may answer a new one). Attaching a card attached
    /// to that customer already answers it again. A card that can no longer be attached
    /// (spent by a payment without a customer) is a ``PaymentDeclined``.
    func attach(token: String, customer: String) async throws -> String
    /// ``authorize(token:amount:idempotencyKey:)`` for the card of `customer`.
    func authorize(token: String, customer: String?, amount: Money, idempotencyKey: String) async throws -> String
    /// ``authorizeAndCapture(token:amount:idempotencyKey:)`` for the card of `customer`.
    func authorizeAndCapture(token: String, customer: String?, amount: Money, idempotencyKey: String)
        async throws -> String?
}

extension PaymentProvider {
    /// Not offered: authorize, then capture.
    public func authorizeAndCapture(token: String, amount: Money, idempotencyKey: String) async throws -> String? {
        nil
    }

    /// Not offered: this provider tokenizes cards itself (``tokenize(_:now:)``).
    public func retrieveTokenized(_ id: String, now: Date) async throws -> TokenizedCard {
        throw ServiceError(
            .failedPrecondition,
            "the \(name) payment provider tokenizes cards on the server; save the card with POST /v1/payment-methods",
            details: ["field": "paymentMethodId"])
    }

    /// No customers: a saved token can be charged any number of times.
    public var usesCustomers: Bool { false }

    /// No customers.
    public func customer(for userId: UUID) async throws -> String? { nil }

    /// Nothing to attach: the token as it is.
    public func attach(token: String, customer: String) async throws -> String { token }

    /// The customer plays no part.
    public func authorize(token: String, customer: String?, amount: Money, idempotencyKey: String) async throws
        -> String
    {
        try await authorize(token: token, amount: amount, idempotencyKey: idempotencyKey)
    }

    /// The customer plays no part.
    public func authorizeAndCapture(token: String, customer: String?, amount: Money, idempotencyKey: String)
        async throws -> String?
    {
        try await authorizeAndCapture(token: token, amount: amount, idempotencyKey: idempotencyKey)
    }

    /// The provider's record by key (``outcome(of:)``).
    public func refundOutcome(authorization: String, idempotencyKey: String) async throws -> PaymentOutcome? {
        try await outcome(of: idempotencyKey)
    }
}

/// What a provider did for one idempotency key.
public enum PaymentOutcome: Sendable, Hashable {
    /// The call succeeded with this id (authorization, capture, void or refund).
    case succeeded(reference: String)
    /// The call was refused.
    case declined(PaymentDeclined)

    /// The id, or the decline thrown.
    public func reference() throws(PaymentDeclined) -> String {
        switch self {
        case .succeeded(let reference): return reference
        case .declined(let declined): throw declined
        }
    }
}
