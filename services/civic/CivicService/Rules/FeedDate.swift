import Contract
import Foundation

/// Dates as the feed writes them: moments in RFC 3339 (with or without fractional seconds, an
/// offset or `Z`, or none, read as UTC) and days as `YYYY-MM-DD` (a moment's date part is taken).
public enum FeedDate {
    /// The moment `text` names, or nil.
    public static func moment(_ text: String) -> Date? {
        var text = text.trimmingCharacters(in: .whitespaces)
        if text.count == 10 { text += "T00:00:00Z" }
        if text.count == 19 { text += "Z" }
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// The `YYYY-MM-DD` day at the start of `text`, or nil.
    public static func day(_ text: String?) -> String? {
        guard let text, text.count >= 10 else { return nil }
        let day = String(text.prefix(10))
        let parts = day.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, parts.allSatisfy({ Int($0) != nil }) else { return nil }
        return day
    }

    /// RFC 3339 in UTC with whole seconds, as replies write moments.
    public static func text(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }

    /// A client's RFC 3339 moment, or `invalid_argument` naming `field`.
    public static func parse(_ text: String, field: String) throws(ServiceError) -> Date {
        guard text.count > 10, let date = moment(text) else {
            throw ServiceError.invalidArgument("\(field) is an RFC 3339 date-time, e.g. 2026-11-24T08:00:00Z", field: field)
        }
        return date
    }
}
