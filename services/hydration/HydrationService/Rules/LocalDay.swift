import Contract

/// A calendar day as the user lived it (`YYYY-MM-DD`), counted in days since 1970-01-01.
/// Proleptic Gregorian arithmetic with no time zone and no clock: a day is a number.
public struct LocalDay: Sendable, Hashable, Comparable, Strideable, CustomStringConvertible {
    public let daysSinceEpoch: Int

    public init(daysSinceEpoch: Int) { self.daysSinceEpoch = daysSinceEpoch }

    /// The day of a civil date.
    public init(year: Int, month: Int, day: Int) {
        daysSinceEpoch = Self.days(year: year, month: month, day: day)
    }

    /// The day `seconds` after 1970-01-01T00:00 local time (floored, so before 1970 works too).
    public init(localSeconds seconds: Int64) {
        let (quotient, remainder) = seconds.quotientAndRemainder(dividingBy: 86_400)
        daysSinceEpoch = Int(remainder < 0 ? quotient - 1 : quotient)
    }

    /// `YYYY-MM-DD`, or `invalid_argument` naming `field`.
    public static func parse(_ text: String, field: String) throws(ServiceError) -> LocalDay {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let year = Self.number(bytes[0..<4]), let month = Self.number(bytes[5..<7]),
            let day = Self.number(bytes[8..<10]), (1...12).contains(month),
            (1...daysIn(month: month, year: year)).contains(day)
        else {
            throw ServiceError.invalidArgument("\(field) must be a date, YYYY-MM-DD", field: field)
        }
        return LocalDay(year: year, month: month, day: day)
    }

    /// The civil date of this day.
    public var civil: (year: Int, month: Int, day: Int) {
        // Howard Hinnant's civil_from_days.
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    public var description: String {
        let (year, month, day) = civil
        return "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))"
    }

    public static func < (lhs: LocalDay, rhs: LocalDay) -> Bool { lhs.daysSinceEpoch < rhs.daysSinceEpoch }
    public func advanced(by n: Int) -> LocalDay { LocalDay(daysSinceEpoch: daysSinceEpoch + n) }
    public func distance(to other: LocalDay) -> Int { other.daysSinceEpoch - daysSinceEpoch }

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
