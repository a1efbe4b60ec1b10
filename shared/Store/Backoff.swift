import Foundation

/// Deterministic exponential back-off between job attempts: `base * multiplier^(attempt - 1)`,
/// capped at `cap`. No jitter, so tests can assert exact times; claims are spread anyway by
/// `SKIP LOCKED` and by when failures happen.
public struct Backoff: Sendable, Equatable {
    /// The delay after the first failed attempt, in seconds.
    public var base: TimeInterval
    /// The largest delay, in seconds.
    public var cap: TimeInterval
    /// The growth factor per attempt.
    public var multiplier: Double

    /// Creates a back-off; by default 2 s, 4 s, 8 s, ... up to 10 minutes.
    public init(base: TimeInterval = 2, cap: TimeInterval = 600, multiplier: Double = 2) {
        self.base = base
        self.cap = cap
        self.multiplier = multiplier
    }

    /// The delay before the next try after failed attempt number `attempt` (1 for the first).
    public func delay(afterAttempt attempt: Int) -> TimeInterval {
        let exponent = Double(max(attempt, 1) - 1)
        let raw = base * pow(multiplier, exponent)
        return raw.isFinite ? min(raw, cap) : cap
    }
}
