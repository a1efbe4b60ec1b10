import Foundation

/// A goal week: from Monday 00:00 to the next Monday 00:00 on the campus's clocks
/// (`CAMPUS_TIME_ZONE`), so a week that changes to or from daylight saving time is 167 or 169
/// hours long. Goals, activity, visits and attendance name their week by its Monday.
public struct CampusWeek: Sendable, Hashable, Comparable {
    /// The Monday, as `YYYY-MM-DD`.
    public let start: String
    /// The instant the week begins: its Monday 00:00 in the campus zone.
    public let startsAt: Date
    /// The instant the next week begins.
    public let endsAt: Date

    /// The week `date` falls in, on the clocks of `zone`.
    public init(containing date: Date, in zone: TimeZone) {
        let calendar = Self.calendar(zone)
        // ISO 8601 weeks begin on Monday, at the first moment of that local day (which is not
        // 00:00 where a clock change skips midnight).
        let interval =
            calendar.dateInterval(of: .weekOfYear, for: date)
            ?? DateInterval(start: date, duration: 7 * 86_400)
        let ymd = calendar.dateComponents([.year, .month, .day], from: interval.start)
        start = String(format: "%04d-%02d-%02d", ymd.year ?? 0, ymd.month ?? 0, ymd.day ?? 0)
        startsAt = interval.start
        endsAt = interval.end
    }

    /// The week of the day `text` names (`YYYY-MM-DD`, any day of the week) on the clocks of
    /// `zone`; nil if it is not a date.
    public init?(day text: String, in zone: TimeZone) {
        guard let match = text.wholeMatch(of: /(\d{4})-(\d{2})-(\d{2})/),
            let year = Int(match.1), let month = Int(match.2), let day = Int(match.3)
        else { return nil }
        let calendar = Self.calendar(zone)
        // Noon of that day: a day always has one, whatever its clock changes.
        let components = DateComponents(year: year, month: month, day: day, hour: 12)
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
        self.init(containing: date, in: zone)
    }

    static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = zone
        return calendar
    }

    public static func < (lhs: CampusWeek, rhs: CampusWeek) -> Bool { lhs.startsAt < rhs.startsAt }
}
