import Foundation

/// The `STANDARD` and `DAYLIGHT` parts of a `VTIMEZONE` (RFC 5545 §3.6.5) evaluated: each part
/// starts at a wall-clock time (`DTSTART`, read in the offset before it, `TZOFFSETFROM`) and
/// brings `TZOFFSETTO`, once or every year by an `RRULE:FREQ=YEARLY` with `BYMONTH` and an
/// ordinal `BYDAY` (`2SU`, `-1SU`), until its `UNTIL`. A zone such as Outlook's
/// `Eastern Standard Time` names no IANA zone; ``matchingZone(years:)`` finds the IANA zone whose
/// offsets agree with these rules at every change of the years asked and between them, which is
/// what a meeting is then stored in. No I/O, no clock.
struct ZoneRules: Sendable {
    /// One `STANDARD` or `DAYLIGHT` part.
    struct Part: Sendable {
        /// The line of its `BEGIN`.
        var line: Int
        var start: LocalDateTime?
        var offsetFrom: Int?
        var offsetTo: Int?
        /// Its `RRULE` value, if any.
        var rule: String?
    }

    /// One change of offset: at `instant`, from `from` to `to` seconds east of UTC.
    struct Change: Sendable, Equatable {
        var instant: Date
        var from: Int
        var to: Int
    }

    var parts: [Part]

    /// A yearly rule read: the month, the ISO weekday and its ordinal in the month (1 the first,
    /// -1 the last), and the last instant it applies.
    struct Yearly {
        var month: Int
        var weekday: Int
        var ordinal: Int
        var until: Date?
    }

    /// The rule of `part` when it is one this reads; nil for anything else.
    static func yearly(_ rule: String) -> Yearly? {
        var frequency: String?
        var month: Int?
        var day: (ordinal: Int, weekday: Int)?
        var until: Date?
        let days = ["MO": 1, "TU": 2, "WE": 3, "TH": 4, "FR": 5, "SA": 6, "SU": 7]
        for item in rule.split(separator: ";") {
            let pair = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { return nil }
            switch pair[0].uppercased() {
            case "FREQ": frequency = pair[1].uppercased()
            case "BYMONTH":
                guard let value = Int(pair[1]), (1...12).contains(value) else { return nil }
                month = value
            case "BYDAY":
                let text = pair[1].uppercased()
                guard text.count >= 3, let weekday = days[String(text.suffix(2))] else { return nil }
                let number = text.dropLast(2)
                guard let ordinal = Int(number.hasPrefix("+") ? String(number.dropFirst()) : String(number)),
                    ordinal != 0, (-5...5).contains(ordinal)
                else { return nil }
                day = (ordinal, weekday)
            case "UNTIL":
                let digits = pair[1].filter(\.isNumber)
                guard digits.count >= 8, let year = Int(digits.prefix(4)),
                    let monthOfYear = Int(digits.dropFirst(4).prefix(2)),
                    let dayOfMonth = Int(digits.dropFirst(6).prefix(2))
                else { return nil }
                var hour = 23, minute = 59, second = 59
                if digits.count >= 14 {
                    hour = Int(digits.dropFirst(8).prefix(2)) ?? 0
                    minute = Int(digits.dropFirst(10).prefix(2)) ?? 0
                    second = Int(digits.dropFirst(12).prefix(2)) ?? 0
                }
                let seconds = LocalDateTime.dayNumber(year: year, month: monthOfYear, day: dayOfMonth) * 86_400
                    + hour * 3600 + minute * 60 + second
                until = Date(timeIntervalSince1970: Double(seconds))
            case "INTERVAL": if pair[1] != "1" { return nil }
            case "WKST": break
            default: return nil
            }
        }
        guard frequency == "YEARLY", let month, let day else { return nil }
        return Yearly(month: month, weekday: day.weekday, ordinal: day.ordinal, until: until)
    }

    /// The day number of the `ordinal`-th ISO `weekday` of `month` in `year` (-1: the last).
    static func day(year: Int, month: Int, weekday: Int, ordinal: Int) -> Int {
        let first = LocalDateTime.dayNumber(year: year, month: month, day: 1)
        let next = month == 12
            ? LocalDateTime.dayNumber(year: year + 1, month: 1, day: 1)
            : LocalDateTime.dayNumber(year: year, month: month + 1, day: 1)
        if ordinal > 0 {
            let firstMatch = first + (weekday - LocalDateTime.weekday(ofDay: first) + 7) % 7
            return min(firstMatch + (ordinal - 1) * 7, next - 1)
        }
        let last = next - 1
        let lastMatch = last - (LocalDateTime.weekday(ofDay: last) - weekday + 7) % 7
        return max(lastMatch + (ordinal + 1) * 7, first)
    }

    /// The changes of offset in `years`, in order; nil when a part cannot be read (no
    /// `DTSTART` or offsets, or a rule other than the yearly ones above).
    func changes(years: ClosedRange<Int>) -> [Change]? {
        var found: [Change] = []
        for part in parts {
            guard let start = part.start, let from = part.offsetFrom, let to = part.offsetTo else { return nil }
            func change(_ local: LocalDateTime) -> Change {
                let seconds = local.dayNumber * 86_400 + local.secondOfDay - from
                return Change(instant: Date(timeIntervalSince1970: Double(seconds)), from: from, to: to)
            }
            guard let rule = part.rule else {
                if years.contains(start.year) { found.append(change(start)) }
                continue
            }
            guard let yearly = Self.yearly(rule) else { return nil }
            for year in years where year >= start.year {
                let day = Self.day(year: year, month: yearly.month, weekday: yearly.weekday, ordinal: yearly.ordinal)
                let next = change(start.on(day: day))
                if let until = yearly.until, next.instant > until { continue }
                if next.instant >= change(start).instant { found.append(next) }
            }
        }
        return found.filter { $0.from != $0.to }.sorted { $0.instant < $1.instant }
    }

    /// The first IANA zone (by name) whose offset agrees with these rules just before and at
    /// every change in `years`, and halfway between changes; nil when none does, when the rules
    /// cannot be read, or when they change nothing in those years.
    func matchingZone(years: ClosedRange<Int>) -> TimeZone? {
        guard let changes = changes(years: years), !changes.isEmpty else { return nil }
        var probes: [(instant: Date, offset: Int)] = []
        for (index, change) in changes.enumerated() {
            probes.append((change.instant.addingTimeInterval(-1), change.from))
            probes.append((change.instant, change.to))
            if index + 1 < changes.count {
                let middle =
                    change.instant.timeIntervalSince1970 / 2 + changes[index + 1].instant.timeIntervalSince1970 / 2
                probes.append((Date(timeIntervalSince1970: middle.rounded(.down)), change.to))
            }
        }
        for identifier in TimeZone.knownTimeZoneIdentifiers.sorted() {
            guard let zone = TimeZone(identifier: identifier) else { continue }
            if probes.allSatisfy({ zone.secondsFromGMT(for: $0.instant) == $0.offset }) { return zone }
        }
        return nil
    }
}
