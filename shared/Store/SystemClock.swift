import Foundation

/// The real wall clock.
public struct SystemClock: WallClock {
    /// Creates the system clock.
    public init() {}

    /// The current time as reported by the operating system.
    public func now() -> Date { Date() }
}
