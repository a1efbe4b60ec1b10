import Foundation
import OpenAPIRuntime

/// Dates as the document's `format: date-time` promises: any RFC 3339 date-time is read
/// (`2026-11-24T15:53:20Z`, with fractional seconds `…20.125Z`, or with an offset `…20+02:00`;
/// `T` and `Z` in either case), and dates are written in the plain UTC form
/// `2026-11-24T15:53:20Z`. The runtime's own ISO 8601 transcoder reads only the form without
/// fractions, so a valid `.5Z` was a 400.
struct RFC3339DateTranscoder: DateTranscoder {
    func encode(_ date: Date) throws -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }

    func decode(_ text: String) throws -> Date {
        // `Regex` is not Sendable, so it cannot be a static constant shared by requests.
        let pattern =
            /([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))/
        guard let match = text.wholeMatch(of: pattern) else { throw Self.invalid(text) }
        let out = match.output
        let (year, month, day) = (Int(out.1)!, Int(out.2)!, Int(out.3)!)
        let (hour, minute, second) = (Int(out.4)!, Int(out.5)!, Int(out.6)!)
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60 else {
            throw Self.invalid(text)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        // A day the month does not have (2026-02-30) would roll over into the next month.
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else {
            throw Self.invalid(text)
        }
        var offset = 0
        if let sign = out.9, let hours = out.10.flatMap({ Int($0) }), let minutes = out.11.flatMap({ Int($0) }) {
            guard hours < 24, minutes < 60 else { throw Self.invalid(text) }
            offset = (hours * 3600 + minutes * 60) * (sign == "-" ? -1 : 1)
        }
        let fraction = out.7.flatMap { Double("0" + $0) } ?? 0
        return date.addingTimeInterval(fraction - Double(offset))
    }

    private static func invalid(_ text: String) -> DecodingError {
        DecodingError.dataCorrupted(
            .init(codingPath: [], debugDescription: "'\(text)' is not an RFC 3339 date-time, e.g. 2026-11-24T15:53:20Z")
        )
    }
}
