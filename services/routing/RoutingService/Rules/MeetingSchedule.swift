import Contract
import Foundation

/// A wall-clock date and time with no zone: what a timetable says ("Monday 08:30").
public struct LocalDateTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (the civil-from-days inverse below).
    public static func dayNumber(year: Int, month: Int, day: Int) -> Int {
        CivilDate.dayNumber(year: year, month: month, day: day)
    }

    /// The date of day number `days` (since 1970-01-01).
    public static func civil(_ days: Int) -> (year: Int, month: Int, day: Int) {
        CivilDate.date(ofDay: days)
    }

    /// Days since 1970-01-01.
    public var dayNumber: Int { Self.dayNumber(year: year, month: month, day: day) }

    /// ISO weekday: 1 Monday ... 7 Sunday.
    public var weekday: Int { Self.weekday(ofDay: dayNumber) }

    /// ISO weekday of a day number (1970-01-01 was a Thursday).
    public static func weekday(ofDay day: Int) -> Int { ((day % 7 + 7 + 3) % 7) + 1 }

    /// Seconds since midnight.
    public var secondOfDay: Int { hour * 3600 + minute * 60 + second }

    /// The same time of day on day number `day`.
    public func on(day: Int) -> LocalDateTime {
        let date = Self.civil(day)
        return LocalDateTime(
            year: date.year, month: date.month, day: date.day, hour: hour, minute: minute, second: second)
    }

    /// A real calendar date with a time of day within 00:00:00-23:59:60.
    public var isValid: Bool {
        guard (1...12).contains(month), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
            (1...9999).contains(year), day >= 1
        else { return false }
        let next = month == 12 ? Self.dayNumber(year: year + 1, month: 1, day: 1)
            : Self.dayNumber(year: year, month: month + 1, day: 1)
        return day <= next - Self.dayNumber(year: year, month: month, day: 1)
    }

    /// The instant this wall-clock time names in `zone`. A time that happens twice (the hour
    /// repeated when clocks go back) is the first of the two; one that never happens (skipped
    /// when clocks go forward) is read with the offset in force before the gap, so it lands
    /// as far after the gap's start as it was meant to be (RFC 5545 §3.3.5).
    public func instant(in zone: TimeZone) -> Date {
        let naive = Double(dayNumber * 86_400 + secondOfDay)
        let before = zone.secondsFromGMT(for: Date(timeIntervalSince1970: naive - 86_400))
        let after = zone.secondsFromGMT(for: Date(timeIntervalSince1970: naive + 86_400))
        // One offset on both sides: the answer below is `naive - before` whether or not it checks
        // out, so the zone is not asked a third time (the common case, and most of the cost).
        if before == after { return Date(timeIntervalSince1970: naive - Double(before)) }
        var valid: [Double] = []
        for offset in Set([before, after]) {
            let candidate = naive - Double(offset)
            if zone.secondsFromGMT(for: Date(timeIntervalSince1970: candidate)) == offset { valid.append(candidate) }
        }
        return Date(timeIntervalSince1970: valid.min() ?? naive - Double(before))
    }

    /// The wall-clock time at `instant` in `zone`.
    public static func at(_ instant: Date, in zone: TimeZone) -> LocalDateTime {
        let seconds = Int(instant.timeIntervalSince1970.rounded(.down)) + zone.secondsFromGMT(for: instant)
        let day = Int((Double(seconds) / 86_400).rounded(.down))
        let rest = seconds - day * 86_400
        let date = civil(day)
        return LocalDateTime(
            year: date.year, month: date.month, day: date.day, hour: rest / 3600, minute: rest % 3600 / 60,
            second: rest % 60)
    }

    /// `YYYY-MM-DDTHH:MM:SS`.
    public var description: String {
        String(format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, hour, minute, second)
    }

    /// Reads ``description``'s form back.
    public init?(_ text: String) {
        // Read by hand, ASCII digits only: every stored meeting is read through here.
        let bytes = Array(text.utf8)
        guard bytes.count == 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard isValid else { return nil }
    }

    public static func < (lhs: LocalDateTime, rhs: LocalDateTime) -> Bool {
        (lhs.dayNumber, lhs.secondOfDay) < (rhs.dayNumber, rhs.secondOfDay)
    }
}

/// A weekly recurrence (RFC 5545 `RRULE:FREQ=WEEKLY` with `BYDAY`, `INTERVAL`, `UNTIL`, `COUNT`,
/// `WKST`).
public struct WeeklyRecurrence: Sendable, Hashable {
    /// ISO weekdays (1 Monday ... 7 Sunday); empty means the weekday of the first meeting.
    public var weekdays: [Int]
    /// Every `interval` weeks (≥ 1).
    public var interval: Int
    /// No occurrence starts after this instant.
    public var until: Date?
    /// At most this many occurrences (counted before exceptions are removed, as RFC 5545 does).
    public var count: Int?
    /// The ISO weekday weeks start on (matters only with `interval` > 1).
    public var weekStart: Int

    public init(weekdays: [Int], interval: Int = 1, until: Date? = nil, count: Int? = nil, weekStart: Int = 1) {
        self.weekdays = weekdays
        self.interval = interval
        self.until = until
        self.count = count
        self.weekStart = weekStart
    }
}

/// When a class meeting happens: its first start (wall clock in its zone), its length, an
/// optional weekly recurrence and the starts cancelled (`EXDATE`). Expansion keeps the wall-clock
/// time across daylight-saving changes: a lecture at 09:00 stays at 09:00 local time.
public struct MeetingSchedule: Sendable, Hashable {
    public var start: LocalDateTime
    public var zone: TimeZone
    /// Seconds.
    public var duration: Int
    public var recurrence: WeeklyRecurrence?
    /// Starts (instants) that do not take place.
    public var exceptions: Set<Date>

    public init(
        start: LocalDateTime, zone: TimeZone, duration: Int, recurrence: WeeklyRecurrence? = nil,
        exceptions: Set<Date> = []
    ) {
        self.start = start
        self.zone = zone
        self.duration = duration
        self.recurrence = recurrence
        self.exceptions = exceptions
    }

    /// One meeting that takes place.
    public struct Occurrence: Sendable, Hashable {
        public var start: Date
        public var end: Date
    }

    /// Most occurrences one expansion yields, whatever the window.
    public static let maximumOccurrences = 10_000

    /// The occurrences overlapping `[from, to)`, in order, cancelled ones left out.
    public func occurrences(from: Date, to: Date) -> [Occurrence] {
        var found: [Occurrence] = []
        expand(from: from.addingTimeInterval(-Double(duration)), until: to) { occurrence in
            if occurrence.end > from, occurrence.start < to, !exceptions.contains(occurrence.start) {
                found.append(occurrence)
            }
            return found.count < Self.maximumOccurrences
        }
        return found
    }

    /// The first instant of the schedule.
    public var firstStart: Date { start.instant(in: zone) }

    /// The end of the last occurrence, or nil when the recurrence never ends.
    public var lastEnd: Date? {
        guard let recurrence else { return firstStart.addingTimeInterval(Double(duration)) }
        guard recurrence.count != nil || recurrence.until != nil else { return nil }
        var last: Occurrence?
        expand(from: nil, until: recurrence.until ?? .distantFuture) { occurrence in
            last = occurrence
            return true
        }
        return last?.end ?? firstStart
    }

    /// Calls `body` with every occurrence (exceptions included) starting no later than `limit`,
    /// in order, while it returns true; without a count, weeks wholly before `from` are skipped
    /// unseen (with a count they must be walked, since they use it up).
    private func expand(from: Date?, until limit: Date, _ body: (Occurrence) -> Bool) {
        func occurrence(_ local: LocalDateTime) -> Occurrence {
            let start = local.instant(in: zone)
            return Occurrence(start: start, end: start.addingTimeInterval(Double(duration)))
        }
        guard let recurrence else {
            let only = occurrence(start)
            if only.start <= limit { _ = body(only) }
            return
        }
        let firstDay = start.dayNumber
        let days = (recurrence.weekdays.isEmpty ? [start.weekday] : recurrence.weekdays)
        // Offsets of the wanted weekdays from the week's first day, in order.
        let offsets = Set(days.map { (($0 - recurrence.weekStart) % 7 + 7) % 7 }).sorted()
        let firstWeekday = LocalDateTime.weekday(ofDay: firstDay)
        let firstWeek = firstDay - ((firstWeekday - recurrence.weekStart) % 7 + 7) % 7
        let interval = max(1, recurrence.interval)
        var produced = 0
        var week = firstWeek
        // A local day before this one ends (in any zone, at most 12 hours behind UTC) before
        // `from`: its occurrences are counted without being placed in time.
        var earliest = Int.min
        if let from {
            earliest = Int((from.timeIntervalSince1970 / 86_400).rounded(.down)) - 1
            if recurrence.count == nil {
                let skip = max(0, (earliest - 1 - firstWeek) / (7 * interval))
                week += skip * 7 * interval
            }
        }
        var loops = 0
        while loops < 100_000 {
            loops += 1
            for offset in offsets {
                let day = week + offset
                guard day >= firstDay else { continue }
                if day < earliest {
                    if let count = recurrence.count, produced >= count { return }
                    produced += 1
                    continue
                }
                let next = occurrence(start.on(day: day))
                if next.start > limit { return }
                if let until = recurrence.until, next.start > until { return }
                if let count = recurrence.count, produced >= count { return }
                produced += 1
                guard body(next) else { return }
            }
            week += 7 * interval
        }
    }
}
