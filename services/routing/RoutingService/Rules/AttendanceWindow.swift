import Foundation

/// When a student at a class's venue counts as attending it: from 10 minutes before its start
/// until its end (exclusive).
public enum AttendanceWindow {
    /// How early before the start one may arrive, seconds.
    public static let lead: TimeInterval = 600

    /// Whether being there at `now` attends the class from `start` to `end`.
    public static func contains(_ now: Date, start: Date, end: Date) -> Bool {
        now >= start.addingTimeInterval(-lead) && now < end
    }
}
