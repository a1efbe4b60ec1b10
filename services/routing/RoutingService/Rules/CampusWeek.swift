import Foundation

/// A goal week: seven days from Monday 00:00 UTC.
public struct CampusWeek: Sendable, Hashable, Comparable {
    /// The Monday, as `YYYY-MM-DD`.
    public let start: String

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The week `date` falls in.
    public init(containing date: Date) {
        let parts = Self.calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: date)
        var monday = DateComponents()
        monday.yearForWeekOfYear = parts.yearForWeekOfYear
        monday.weekOfYear = parts.weekOfYear
        monday.weekday = 2
        let day = Self.calendar.date(from: monday) ?? date
        let ymd = Self.calendar.dateComponents([.year, .month, .day], from: day)
        start = String(format: "%04d-%02d-%02d", ymd.year ?? 0, ymd.month ?? 0, ymd.day ?? 0)
    }

    /// The week of the day `text` names (`YYYY-MM-DD`, any day of the week); nil if it is not a date.
    public init?(day text: String) {
        guard let match = text.wholeMatch(of: /(\d{4})-(\d{2})-(\d{2})/),
            let year = Int(match.1), let month = Int(match.2), let day = Int(match.3)
        else { return nil }
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: Self.calendar), let date = Self.calendar.date(from: components) else {
            return nil
        }
        self.init(containing: date)
    }

    public static func < (lhs: CampusWeek, rhs: CampusWeek) -> Bool { lhs.start < rhs.start }
}
