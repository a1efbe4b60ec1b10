import Contract

/// An instant together with the UTC offset the device had at that instant, read from and
/// written as RFC 3339 (`2026-11-24T08:30:00-05:00`). The offset decides the user's day,
/// so a drink logged while travelling counts for the day the user lived there.
public struct LocalMoment: Sendable, Hashable {
    /// Microseconds since 1970-01-01T00:00:00Z.
    public let micros: Int64
    /// Seconds east of UTC.
    public let offsetSeconds: Int

    public init(micros: Int64, offsetSeconds: Int) {
        self.micros = micros
        self.offsetSeconds = offsetSeconds
    }

    /// The user's day of this moment.
    public var localDay: LocalDay {
        LocalDay(localSeconds: Self.floorDiv(micros, 1_000_000) + Int64(offsetSeconds))
    }

    /// RFC 3339 `date-time` with a `Z` or `±HH:MM` offset and up to 9 fraction digits (kept to
    /// the microsecond); `invalid_argument` naming `field` for anything else.
    public static func parse(_ text: String, field: String) throws(ServiceError) -> LocalMoment {
        let bad = ServiceError.invalidArgument(
            "\(field) must be an RFC 3339 date-time with an offset, e.g. 2026-11-24T08:30:00-05:00", field: field)
        let b = Array(text.utf8)
        guard b.count >= 20, b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t"),
            b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
            let day = try? LocalDay.parse(String(decoding: b[0..<10], as: UTF8.self), field: field),
            let hour = LocalDay.number(b[11..<13]), let minute = LocalDay.number(b[14..<16]),
            let second = LocalDay.number(b[17..<19]), hour < 24, minute < 60, second < 60
        else { throw bad }
        var index = 19
        var fractionMicros: Int64 = 0
        if b[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < b.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[index]) {
                if digits < 6 { fractionMicros = fractionMicros * 10 + Int64(b[index] - UInt8(ascii: "0")) }
                digits += 1
                index += 1
            }
            guard (1...9).contains(digits) else { throw bad }
            if digits < 6 { for _ in digits..<6 { fractionMicros *= 10 } }
        }
        guard index < b.count else { throw bad }
        let offset: Int
        switch b[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == b.count else { throw bad }
            offset = 0
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == b.count, b[index + 3] == UInt8(ascii: ":"),
                let hours = LocalDay.number(b[(index + 1)..<(index + 3)]),
                let minutes = LocalDay.number(b[(index + 4)..<(index + 6)]), hours < 24, minutes < 60
            else { throw bad }
            offset = (b[index] == UInt8(ascii: "-") ? -1 : 1) * (hours * 3_600 + minutes * 60)
        default: throw bad
        }
        let localSeconds = Int64(day.daysSinceEpoch) * 86_400 + Int64(hour * 3_600 + minute * 60 + second)
        return LocalMoment(micros: (localSeconds - Int64(offset)) * 1_000_000 + fractionMicros, offsetSeconds: offset)
    }

    /// RFC 3339 in the moment's own offset; milliseconds or microseconds only when it has them.
    public var rfc3339: String {
        let local = micros + Int64(offsetSeconds) * 1_000_000
        let seconds = Self.floorDiv(local, 1_000_000)
        let fraction = local - seconds * 1_000_000
        let day = LocalDay(localSeconds: seconds)
        let inDay = Int(seconds - Int64(day.daysSinceEpoch) * 86_400)
        var text = "\(day)T\(LocalDay.pad(inDay / 3_600, 2)):\(LocalDay.pad(inDay / 60 % 60, 2)):"
        text += LocalDay.pad(inDay % 60, 2)
        if fraction != 0 {
            text +=
                fraction % 1_000 == 0
                ? "." + LocalDay.pad(Int(fraction / 1_000), 3) : "." + LocalDay.pad(Int(fraction), 6)
        }
        if offsetSeconds == 0 { return text + "Z" }
        let size = abs(offsetSeconds)
        return text + (offsetSeconds < 0 ? "-" : "+") + LocalDay.pad(size / 3_600, 2) + ":"
            + LocalDay.pad(size / 60 % 60, 2)
    }

    static func floorDiv(_ value: Int64, _ divisor: Int64) -> Int64 {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }
}
