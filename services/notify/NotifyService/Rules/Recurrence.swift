import Contract
import Foundation

/// When a schedule fires: once at an instant, or at times of day on days of the week in a zone.
public struct Recurrence: Sendable, Equatable {
    /// A one-off instant, or nil for a recurring schedule.
    public var once: Date?
    /// The times of day, sorted, for a recurring schedule.
    public var times: [TimeOfDay]
    /// ISO weekdays (1 = Monday ... 7 = Sunday); empty means every day.
    public var days: Set<Int>

    /// A checked recurrence: exactly one of `once` or `times`; days in 1...7.
    public init(once: Date?, times: [TimeOfDay], days: Set<Int>) throws(ServiceError) {
        guard (once == nil) != times.isEmpty else {
            throw ServiceError.invalidArgument("give either at (a one-off) or timesOfDay (recurring)", field: "at")
        }
        guard days.allSatisfy({ (1...7).contains($0) }) else {
            throw ServiceError.invalidArgument("daysOfWeek are 1 (Monday) to 7 (Sunday)", field: "daysOfWeek")
        }
        guard times.count <= 48 else {
            throw ServiceError.invalidArgument("at most 48 times of day", field: "timesOfDay")
        }
        self.once = once
        self.times = Array(Set(times)).sorted()
        self.days = days
    }

    /// The first occurrence strictly after `instant` (nil when a one-off has passed).
    public func next(after instant: Date, in zone: LocalTime) -> Date? {
        if let once { return once > instant ? once : nil }
        var midnight = zone.startOfDay(instant)
        for _ in 0..<9 {
            if days.isEmpty || days.contains(zone.isoWeekday(at: midnight.addingTimeInterval(43_200))) {
                for time in times {
                    let candidate = zone.instant(on: midnight, at: time)
                    if candidate > instant { return candidate }
                }
            }
            midnight = zone.day(after: midnight)
        }
        return nil
    }
}
