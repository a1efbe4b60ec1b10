import Foundation
import Synchronization

/// A clock that only moves when told to, for tests. Thread-safe.
public final class ManualClock: WallClock {
    private let current: Mutex<Date>

    /// Creates a clock that reads `start` until moved (by default a fixed, whole-second instant,
    /// 2024-01-01T00:00:00Z, so that times survive PostgreSQL's microsecond precision exactly).
    public init(_ start: Date = Date(timeIntervalSince1970: 1_704_067_200)) {
        self.current = Mutex(start)
    }

    /// The time the clock was last set to.
    public func now() -> Date {
        current.withLock { $0 }
    }

    /// Moves the clock forward (or backward, for a negative interval) by `interval` seconds.
    public func advance(by interval: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(interval) }
    }

    /// Sets the clock to `date`.
    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}
