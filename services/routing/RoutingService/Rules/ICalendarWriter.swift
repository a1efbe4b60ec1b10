import Foundation

/// Writes class occurrences as an iCalendar feed (RFC 5545) for a phone's calendar: one `VEVENT`
/// per occurrence, times in UTC, lines folded at 75 octets.
public enum ICalendarWriter {
    /// One event of the feed.
    public struct Event: Sendable {
        public var uid: String
        public var start: Date
        public var end: Date
        public var summary: String
        public var location: String
        public var categories: String
        public init(uid: String, start: Date, end: Date, summary: String, location: String, categories: String) {
            self.uid = uid
            self.start = start
            self.end = end
            self.summary = summary
            self.location = location
            self.categories = categories
        }
    }

    /// The calendar; `stamp` is the feed's `DTSTAMP` (when it was made).
    public static func calendar(_ events: [Event], name: String, stamp: Date) -> String {
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Backplane//NavUP timetable//EN", "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH", "X-WR-CALNAME:\(escape(name))",
        ]
        for event in events {
            lines += [
                "BEGIN:VEVENT", "UID:\(escape(event.uid))", "DTSTAMP:\(utc(stamp))", "DTSTART:\(utc(event.start))",
                "DTEND:\(utc(event.end))", "SUMMARY:\(escape(event.summary))",
            ]
            if !event.location.isEmpty { lines.append("LOCATION:\(escape(event.location))") }
            lines += ["CATEGORIES:\(escape(event.categories))", "END:VEVENT"]
        }
        lines.append("END:VCALENDAR")
        return lines.map(fold).joined(separator: "\r\n") + "\r\n"
    }

    /// `YYYYMMDDTHHMMSSZ`.
    static func utc(_ date: Date) -> String {
        let time = LocalDateTime.at(date, in: TimeZone(identifier: "UTC")!)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", time.year, time.month, time.day, time.hour, time.minute, time.second)
    }

    /// A TEXT value: backslash, semicolon, comma and line breaks escaped.
    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case ";": result += "\\;"
            case ",": result += "\\,"
            case "\n", "\r\n", "\r": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }

    /// Splits a line into 75-octet pieces, continuation lines starting with a space, never inside
    /// a UTF-8 sequence.
    static func fold(_ line: String) -> String {
        guard line.utf8.count > 75 else { return line }
        var pieces: [String] = []
        var current = ""
        var octets = 0
        for character in line {
            let size = String(character).utf8.count
            let limit = pieces.isEmpty ? 75 : 74
            if octets + size > limit {
                pieces.append(current)
                current = ""
                octets = 0
            }
            current.append(character)
            octets += size
        }
        pieces.append(current)
        return pieces.joined(separator: "\r\n ")
    }
}
