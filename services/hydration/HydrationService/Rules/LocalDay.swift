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
        CivilDate.date(ofDay: daysSinceEpoch)
    }

    public var description: String {
        let (year, month, day) = civil
        return "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))"
    }

    public static func < (lhs: LocalDay, rhs: LocalDay) -> Bool { lhs.daysSinceEpoch < rhs.daysSinceEpoch }
    public func advanced(by n: Int) -> LocalDay { LocalDay(daysSinceEpoch: daysSinceEpoch + n) }
    public func distance(to other: LocalDay) -> Int { other.daysSinceEpoch - daysSinceEpoch }

    /// Days since 1970-01-01 of a civil date.
    static func days(year: Int, month: Int, day: Int) -> Int {
        CivilDate.dayNumber(year: year, month: month, day: day)
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
