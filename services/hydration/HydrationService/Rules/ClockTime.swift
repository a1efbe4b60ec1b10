import Contract

/// A time of day, `HH:mm`, as minutes after midnight.
public struct ClockTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let minutes: Int

    public init?(minutes: Int) {
        guard (0..<1_440).contains(minutes) else { return nil }
        self.minutes = minutes
    }

    /// `HH:mm` (24-hour), or `invalid_argument` naming `field`.
    public static func parse(_ text: String, field: String) throws(ServiceError) -> ClockTime {
        let bytes = Array(text.utf8)
        guard bytes.count == 5, bytes[2] == UInt8(ascii: ":"), let hours = LocalDay.number(bytes[0..<2]),
            let minutes = LocalDay.number(bytes[3..<5]), hours < 24, minutes < 60,
            let time = ClockTime(minutes: hours * 60 + minutes)
        else { throw ServiceError.invalidArgument("\(field) must be HH:mm, 00:00 to 23:59", field: field) }
        return time
    }

    public var description: String { "\(LocalDay.pad(minutes / 60, 2)):\(LocalDay.pad(minutes % 60, 2))" }

    public static func < (lhs: ClockTime, rhs: ClockTime) -> Bool { lhs.minutes < rhs.minutes }
}
