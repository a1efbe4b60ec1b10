import Foundation

/// A daily window, in a user's time zone, when non-critical e-mail and push wait.
public struct QuietWindow: Sendable, Equatable {
    /// When it starts.
    public var start: TimeOfDay
    /// When it ends; earlier than `start` means it spans midnight (e.g. 22:00-07:00).
    public var end: TimeOfDay

    /// Creates a window.
    public init(start: TimeOfDay, end: TimeOfDay) {
        self.start = start
        self.end = end
    }

    /// Whether a local time (minutes after midnight) falls inside.
    public func contains(minutes: Int) -> Bool {
        if start == end { return false }
        if start < end { return minutes >= start.minutes && minutes < end.minutes }
        return minutes >= start.minutes || minutes < end.minutes
    }

    /// `instant` if it is outside the window, else the instant the window ends.
    public func release(_ instant: Date, in zone: LocalTime) -> Date {
        let local = zone.minutes(at: instant)
        guard contains(minutes: local) else { return instant }
        let midnight = zone.startOfDay(instant)
        let endDay = local >= end.minutes ? zone.day(after: midnight) : midnight
        return zone.instant(on: endDay, at: end)
    }
}
