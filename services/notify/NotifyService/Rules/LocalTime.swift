import Contract
import Foundation

/// Calendar arithmetic in one time zone, for quiet hours and recurring schedules.
public struct LocalTime: Sendable {
    /// The zone.
    public let timeZone: TimeZone
    let calendar: Calendar

    /// The zone with IANA identifier `identifier`; `invalid_argument` naming `field` otherwise.
    public init(_ identifier: String, field: String = "timeZone") throws(ServiceError) {
        guard let zone = TimeZone(identifier: identifier) else {
            throw ServiceError.invalidArgument(
                "\(field) must be an IANA time zone such as Europe/Stockholm; got '\(identifier)'", field: field)
        }
        self.init(zone)
    }

    /// The given zone.
    public init(_ timeZone: TimeZone) {
        self.timeZone = timeZone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    /// Minutes after local midnight at `instant`.
    public func minutes(at instant: Date) -> Int {
        let parts = calendar.dateComponents([.hour, .minute], from: instant)
        return (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
    }

    /// ISO weekday at `instant`: 1 = Monday ... 7 = Sunday.
    public func isoWeekday(at instant: Date) -> Int {
        let weekday = calendar.component(.weekday, from: instant)  // 1 = Sunday
        return weekday == 1 ? 7 : weekday - 1
    }

    /// The local midnight that starts the day `instant` is in.
    public func startOfDay(_ instant: Date) -> Date { calendar.startOfDay(for: instant) }

    /// `time` on the local day that starts at `midnight`; a time skipped by a daylight-saving
    /// jump moves forward to the first valid one.
    public func instant(on midnight: Date, at time: TimeOfDay) -> Date {
        let parts = calendar.dateComponents([.year, .month, .day], from: midnight)
        var wanted = DateComponents()
        wanted.year = parts.year
        wanted.month = parts.month
        wanted.day = parts.day
        wanted.hour = time.minutes / 60
        wanted.minute = time.minutes % 60
        return calendar.nextDate(
            after: midnight.addingTimeInterval(-1), matching: DateComponents(hour: wanted.hour, minute: wanted.minute),
            matchingPolicy: .nextTime) ?? calendar.date(from: wanted) ?? midnight
    }

    /// The local midnight `days` days after `midnight`.
    public func day(after midnight: Date, days: Int = 1) -> Date {
        calendar.date(byAdding: .day, value: days, to: midnight) ?? midnight.addingTimeInterval(Double(days) * 86_400)
    }
}
