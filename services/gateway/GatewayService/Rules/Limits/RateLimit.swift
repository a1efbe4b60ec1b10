import Contract
import Majordomo

/// How fast one client may call one class of routes: `count` requests per `period`, with bursts
/// of up to `burst` requests at once.
///
/// It is a token bucket of `burst` tokens that refills one token every `period / count`. The
/// bucket is kept as GCRA's "theoretical arrival time" (one integer per client): the instant at
/// which the client's bucket would be full again. That gives the same answers as counting tokens,
/// with nothing to refill and one number to store.
public struct RateLimit: Sendable, Equatable, CustomStringConvertible {
    /// Requests allowed per ``period`` once the burst is spent.
    public let count: Int
    /// The period ``count`` is measured over.
    public let period: Duration
    /// Requests allowed at once from a full bucket (at least 1).
    public let burst: Int

    /// The time one token takes to come back, in nanoseconds.
    var interval: Int64 { max(1, period.nanoseconds / Int64(count)) }
    /// How far ahead of now the arrival time may run before a request is refused.
    var tolerance: Int64 {
        let (product, overflow) = interval.multipliedReportingOverflow(by: Int64(burst - 1))
        return overflow ? Int64.max / 2 : product
    }

    /// A limit of `count` per `period` with bursts of `burst`.
    public init(count: Int, per period: Duration, burst: Int) {
        precondition(count > 0 && burst > 0 && period > .zero, "a rate limit needs a positive rate and burst")
        self.count = count
        self.period = period
        self.burst = burst
    }

    public var description: String {
        let unit =
            switch period {
            case .seconds(1): "s"
            case .seconds(60): "min"
            case .seconds(3600): "h"
            default: "\(period.nanoseconds / 1_000_000_000)s"
            }
        return "\(count)/\(unit),burst=\(burst)"
    }

    /// What ``admit(arrival:now:)`` decided.
    public enum Decision: Sendable, Equatable {
        /// Go ahead; store `arrival` as the client's new arrival time.
        case allowed(arrival: Int64)
        /// Refused; the client may try again after `retryAfter`.
        case refused(retryAfter: Duration)
    }

    /// Whether a request at `now` (nanoseconds on a monotonic clock) is within the limit, given
    /// the client's stored arrival time (nil for a client not seen, or whose bucket is full).
    public func admit(arrival: Int64?, now: Int64) -> Decision {
        let start = max(arrival ?? now, now)
        let ahead = start - now
        guard ahead <= tolerance else {
            return .refused(retryAfter: .nanoseconds(ahead - tolerance))
        }
        let (next, overflow) = start.addingReportingOverflow(interval)
        return .allowed(arrival: overflow ? .max : next)
    }

    /// Parses `COUNT/UNIT[,burst=N]`, UNIT one of `s`, `min`, `h` (e.g. `30/min,burst=10`); the
    /// burst defaults to the count. Nil for `off`.
    public static func parse(_ text: String) throws(ServiceError) -> RateLimit? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed == "off" { return nil }
        let parts = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let rate = parts.first?.split(separator: "/") ?? []
        guard rate.count == 2, let count = Int(rate[0]), count > 0, count <= 1_000_000_000 else {
            throw Self.syntax(text)
        }
        let period: Duration
        switch rate[1] {
        case "s", "sec", "second": period = .seconds(1)
        case "min", "minute": period = .seconds(60)
        case "h", "hour": period = .seconds(3600)
        default: throw Self.syntax(text)
        }
        var burst = count
        for option in parts.dropFirst() {
            let pair = option.split(separator: "=")
            guard pair.count == 2, pair[0] == "burst", let value = Int(pair[1]), value > 0, value <= 1_000_000_000
            else {
                throw Self.syntax(text)
            }
            burst = value
        }
        return RateLimit(count: count, per: period, burst: burst)
    }

    private static func syntax(_ text: String) -> ServiceError {
        ServiceError(
            .invalidArgument,
            "'\(text)' is not a rate limit: write COUNT/UNIT[,burst=N] with UNIT s, min or h (e.g. 30/min,burst=10), or off"
        )
    }
}
