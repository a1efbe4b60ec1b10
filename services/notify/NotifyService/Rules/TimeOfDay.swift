import Contract

/// A wall-clock time of day, `HH:mm`, as minutes after midnight.
public struct TimeOfDay: Sendable, Hashable, Comparable {
    /// 0 ... 1439.
    public let minutes: Int

    /// From minutes after midnight.
    public init?(minutes: Int) {
        guard (0..<1440).contains(minutes) else { return nil }
        self.minutes = minutes
    }

    /// Parses `HH:mm` (24-hour clock); `invalid_argument` naming `field` otherwise.
    public init(parsing text: String, field: String) throws(ServiceError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let hour = Int(parts[0]),
            let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else {
            throw ServiceError.invalidArgument(
                "\(field) must be a time as HH:mm, e.g. 07:30; got '\(text)'", field: field)
        }
        self.minutes = hour * 60 + minute
    }

    /// `HH:mm`.
    public var text: String {
        let hour = minutes / 60
        let minute = minutes % 60
        return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }

    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool { lhs.minutes < rhs.minutes }
}
