import Contract
import Foundation

/// How many recipients an account may send free e-cards to per day. A free e-card is mail sent
/// from our servers that nobody pays for, so without a cap an account could send mail in bulk.
///
/// A day is a UTC calendar day; every free e-card placed that day counts with all its
/// recipients, whatever became of the order (a card canceled after it went out was still sent).
/// An order that would take the day's count past the cap is refused whole.
public struct FreeEcardAllowance: Sendable, Hashable {
    /// Recipients of free e-cards per account and UTC day.
    public var recipientsPerDay: Int

    /// The service's default: 20 recipients a day.
    public static let defaultRecipientsPerDay = 20

    public init(recipientsPerDay: Int = Self.defaultRecipientsPerDay) {
        self.recipientsPerDay = recipientsPerDay
    }

    /// What the allowance says about one more free e-card.
    public enum Verdict: Sendable, Hashable {
        case allowed
        /// Refused: the day's count (`sent`) plus this order's recipients is over the cap.
        /// `retryAfter` is the whole seconds (at least 1) until the day rolls over.
        case exceeded(sent: Int, retryAfter: Int)
    }

    /// The UTC day `now` falls in, as `[start, end)`.
    public static func day(containing now: Date) -> (start: Date, end: Date) {
        let seconds = now.timeIntervalSince1970
        let start = (seconds / 86_400).rounded(.down) * 86_400
        return (Date(timeIntervalSince1970: start), Date(timeIntervalSince1970: start + 86_400))
    }

    /// Whether an account that has sent free e-cards to `sent` recipients today may send one to
    /// `recipients` more at `now`.
    public func check(sent: Int, recipients: Int, now: Date) -> Verdict {
        guard sent + recipients > recipientsPerDay else { return .allowed }
        let end = Self.day(containing: now).end
        return .exceeded(sent: sent, retryAfter: max(1, Int(end.timeIntervalSince(now).rounded(.up))))
    }

    /// The 429 for an ``Verdict/exceeded(sent:retryAfter:)`` verdict: `rate_limited` with
    /// `retryAfterSeconds` (the gateway's `Retry-After`), the cap and the day's count.
    public func refusal(sent: Int, recipients: Int, retryAfter: Int) -> ServiceError {
        let left = max(0, recipientsPerDay - sent)
        let message =
            recipients > recipientsPerDay
            ? "free e-cards reach at most \(recipientsPerDay) recipients a day; this one has \(recipients)"
            : "free e-cards reach at most \(recipientsPerDay) recipients a day; \(left) left today, "
                + "this one has \(recipients); try again after the day rolls over (UTC) in \(retryAfter) s"
        return ServiceError(
            .rateLimited, message,
            details: [
                "reason": .string(Self.reason), "field": .string("ecard.recipients"),
                "limit": .number(Double(recipientsPerDay)), "sentToday": .number(Double(sent)),
                "requested": .number(Double(recipients)), "retryAfterSeconds": .number(Double(retryAfter)),
            ])
    }

    /// `details.reason` of ``refusal(sent:recipients:retryAfter:)``.
    public static let reason = "free_ecard_limit"
}
