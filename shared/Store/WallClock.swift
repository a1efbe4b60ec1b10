import Foundation

/// The source of "now" for every rule that depends on time (job back-off, leases, lockouts,
/// token expiry). Production code uses ``SystemClock``; tests inject a ``ManualClock`` and move it.
public protocol WallClock: Sendable {
    /// The current wall-clock time.
    func now() -> Date
}
