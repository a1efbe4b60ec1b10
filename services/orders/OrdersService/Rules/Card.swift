import Contract
import Foundation

/// A card as the user typed it. It only passes through: the provider tokenizes it and the
/// number and CVC are dropped. `description` never shows them.
public struct CardDetails: Sendable, CustomStringConvertible {
    /// The digits (spaces and dashes removed).
    public let number: String
    public let expMonth: Int
    public let expYear: Int
    public let cvc: String

    /// Creates card details, dropping spaces and dashes from the number.
    public init(number: String, expMonth: Int, expYear: Int, cvc: String) {
        self.number = number.filter { $0 != " " && $0 != "-" }
        self.expMonth = expMonth
        self.expYear = expYear
        self.cvc = cvc
    }

    /// The last four digits.
    public var last4: String { String(number.suffix(4)) }

    public var description: String { "card ending \(last4)" }

    /// Whether the digits pass the Luhn check.
    public static func luhn(_ digits: String) -> Bool {
        var sum = 0
        for (index, character) in digits.reversed().enumerated() {
            guard let digit = character.wholeNumberValue else { return false }
            if index % 2 == 1 {
                let doubled = digit * 2
                sum += doubled > 9 ? doubled - 9 : doubled
            } else {
                sum += digit
            }
        }
        return sum % 10 == 0
    }

    /// The brand from the number's prefix (IIN ranges).
    public static func brand(_ digits: String) -> String {
        let two = Int(digits.prefix(2)) ?? 0
        let four = Int(digits.prefix(4)) ?? 0
        if digits.hasPrefix("4") { return "visa" }
        if (51...55).contains(two) || (2221...2720).contains(four) { return "mastercard" }
        if two == 34 || two == 37 { return "amex" }
        if digits.hasPrefix("6011") || digits.hasPrefix("65") { return "discover" }
        if (3528...3589).contains(four) { return "jcb" }
        return "unknown"
    }

    /// Checks the shape of every field and that the card has not expired by `now`; a 400 naming
    /// the field otherwise. The message never contains the number.
    public func validate(now: Date) throws(ServiceError) {
        guard (12...19).contains(number.count), number.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw ServiceError.invalidArgument("a card number has 12 to 19 digits", field: "number")
        }
        guard Self.luhn(number) else {
            throw ServiceError(
                .invalidArgument, "the card number is not valid (check digit)",
                details: ["field": "number", "reason": "incorrect_number"])
        }
        guard (1...12).contains(expMonth) else { throw .invalidArgument("expMonth is 1 to 12", field: "expMonth") }
        guard (2000...2100).contains(expYear) else {
            throw .invalidArgument("expYear has four digits", field: "expYear")
        }
        let expectedCVC = Self.brand(number) == "amex" ? 4 : 3
        guard cvc.count == expectedCVC, cvc.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw .invalidArgument("the CVC has \(expectedCVC) digits", field: "cvc")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let today = calendar.dateComponents([.year, .month], from: now)
        if expYear < today.year! || (expYear == today.year! && expMonth < today.month!) {
            throw ServiceError(
                .invalidArgument, "the card expired at the end of \(expMonth)/\(expYear)",
                details: ["field": "expYear", "reason": "expired_card"])
        }
    }
}
