import CommonContract
import Contract
import Crypto
import Foundation
import Store

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
/// The outcome travels in the token (`tok_sbx_<outcome>_<random>`); ids are derived from the
/// idempotency key, and every call is kept in a ``SandboxRecord`` under its key, so a repeated
/// key gets the first result and ``outcome(of:)`` can say what happened to a key, like a
/// processor's own records.
public struct SandboxPaymentClient: PaymentProvider {
    public let name = "sandbox"
    let record: SandboxRecord
    let clock: any WallClock

    /// Creates the sandbox with its record (by default in memory, for this process only).
    public init(record: SandboxRecord = .memory(), clock: any WallClock = SystemClock()) {
        self.record = record
        self.clock = clock
    }

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
        let outcome: PaymentOutcome
        if parts.count >= 4, parts[0] == "tok", parts[1] == "sbx" {
            let result = parts[2..<(parts.count - 1)].joined(separator: "_")
            outcome =
                result == "ok"
                ? .succeeded(reference: "auth_sbx_" + Self.id(idempotencyKey))
                : .declined(PaymentDeclined(reason: result, message: Self.messages[result] ?? "the card was declined"))
        } else {
            outcome = .declined(
                PaymentDeclined(reason: "card_declined", message: "the sandbox does not know this card"))
        }
        return try await call("authorize", outcome, key: idempotencyKey, amount: amount)
    }

    public func capture(authorization: String, amount: Money, idempotencyKey: String) async throws -> String {
        try await call(
            "capture", .succeeded(reference: "cap_sbx_" + Self.id(idempotencyKey)), key: idempotencyKey, amount: amount)
    }

    public func void(authorization: String, idempotencyKey: String) async throws -> String {
        try await call(
            "void", .succeeded(reference: "void_sbx_" + Self.id(idempotencyKey)), key: idempotencyKey, amount: nil)
    }

    public func refund(authorization: String, amount: Money, idempotencyKey: String) async throws -> String {
        try await call(
            "refund", .succeeded(reference: "re_sbx_" + Self.id(idempotencyKey)), key: idempotencyKey, amount: amount)
    }

    public func outcome(of idempotencyKey: String) async throws -> PaymentOutcome? {
        try await record.find(idempotencyKey)?.outcome
    }

    /// Records the call (the first result under a key wins) and answers it.
    func call(_ operation: String, _ outcome: PaymentOutcome, key: String, amount: Money?) async throws -> String {
        if let earlier = try await record.find(key) { return try earlier.outcome.reference() }
        let stored = try await record.record(
            SandboxRecord.Entry(operation: operation, outcome: outcome), key: key, amount: amount, now: clock.now())
        return try stored.outcome.reference()
    }

    static func id(_ key: String) -> String {
        SHA256.hash(data: Data(key.utf8)).prefix(12).lowercaseHex
    }
}
