import Contract
import Crypto
import Foundation

/// The built-in provider, the default: behaves like a card processor's test mode, and moves no
/// real money. Luhn and expiry checks on tokenize; on authorize,
///
/// | card | result |
/// |---|---|
/// | 4242 4242 4242 4242 (and any other valid number) | succeeds |
/// | 4000 0000 0000 0002 | `card_declined` |
/// | 4000 0000 0000 9995 | `insufficient_funds` |
/// | 4000 0000 0000 0069 | `expired_card` |
/// | 4000 0000 0000 0119 | `processing_error` |
///
/// The outcome travels in the token (`tok_sbx_<outcome>_<random>`), so the sandbox keeps no
/// state; ids derived from the idempotency key make every call repeatable.
public struct SandboxPaymentProvider: PaymentProvider {
    public let name = "sandbox"

    /// Creates the sandbox.
    public init() {}

    static let outcomes: [String: String] = [
        "4000000000000002": "card_declined",
        "4000000000009995": "insufficient_funds",
        "4000000000000069": "expired_card",
        "4000000000000119": "processing_error",
    ]

    static let messages: [String: String] = [
        "card_declined": "the card was declined",
        "insufficient_funds": "the card has insufficient funds",
        "expired_card": "the card has expired",
        "processing_error": "the card could not be processed; try again",
    ]

    public func tokenize(_ card: CardDetails, now: Date) async throws -> TokenizedCard {
        try card.validate(now: now)
        let outcome = Self.outcomes[card.number] ?? "ok"
        let random = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        return TokenizedCard(
            token: "tok_sbx_\(outcome)_\(random)", brand: CardDetails.brand(card.number), last4: card.last4,
            expMonth: card.expMonth, expYear: card.expYear)
    }

    public func authorize(token: String, amount: Money, idempotencyKey: String) async throws -> String {
        let parts = token.split(separator: "_")
        guard parts.count >= 4, parts[0] == "tok", parts[1] == "sbx" else {
            throw PaymentDeclined(reason: "card_declined", message: "the sandbox does not know this card")
        }
        let outcome = parts[2..<(parts.count - 1)].joined(separator: "_")
        if outcome != "ok" {
            throw PaymentDeclined(reason: outcome, message: Self.messages[outcome] ?? "the card was declined")
        }
        return "auth_sbx_" + Self.id(idempotencyKey)
    }

    public func capture(authorization: String, amount: Money, idempotencyKey: String) async throws -> String {
        "cap_sbx_" + Self.id(idempotencyKey)
    }

    public func void(authorization: String, idempotencyKey: String) async throws -> String {
        "void_sbx_" + Self.id(idempotencyKey)
    }

    public func refund(authorization: String, amount: Money, idempotencyKey: String) async throws -> String {
        "re_sbx_" + Self.id(idempotencyKey)
    }

    static func id(_ key: String) -> String {
        SHA256.hash(data: Data(key.utf8)).prefix(12).lowercaseHex
    }
}
