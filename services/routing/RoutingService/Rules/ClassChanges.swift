import Foundation

/// What a timetable change does to the occurrences students expect: the occurrences of a class
/// (one meeting with the meetings that move single occurrences of it) before and after, within
/// the announcement horizon, compared. No I/O, no clock.
public enum ClassChanges {
    /// One occurrence: when and where.
    public struct Slot: Sendable, Hashable, Comparable {
        public var start: Date
        public var end: Date
        /// The venue's id, else the location text (what makes "the same place").
        public var place: String
        /// What a student reads as the place.
        public var placeName: String

        public init(start: Date, end: Date, place: String, placeName: String) {
            self.start = start
            self.end = end
            self.place = place
            self.placeName = placeName
        }

        public static func < (lhs: Slot, rhs: Slot) -> Bool { (lhs.start, lhs.place) < (rhs.start, rhs.place) }
        public static func == (lhs: Slot, rhs: Slot) -> Bool {
            (lhs.start, lhs.end, lhs.place) == (rhs.start, rhs.end, rhs.place)
        }
        public func hash(into hasher: inout Hasher) {
            hasher.combine(start)
            hasher.combine(end)
            hasher.combine(place)
        }
    }

    /// One announced change.
    public struct Change: Sendable, Equatable {
        /// The occurrence as it was.
        public var from: Slot
        /// Where and when it happens now; nil when cancelled.
        public var to: Slot?

        public init(from: Slot, to: Slot?) {
            self.from = from
            self.to = to
        }
    }

    /// Two occurrences at most this far apart are read as one moved (an occurrence taken off a
    /// Monday and one put on the Tuesday after is a move, not a cancellation and a new class).
    public static let pairing: TimeInterval = 7 * 86_400

    /// The changes from `old` to `new`: every occurrence of `old` that `new` lacks is moved to
    /// the first (by start) unpaired occurrence of `new` that `old` lacks and lies within
    /// ``pairing`` of it, else cancelled. Occurrences only `new` has and that pair with nothing are
    /// not changes to announce (a class added is not one moved or cancelled).
    public static func diff(old: [Slot], new: [Slot]) -> [Change] {
        var remaining = new.sorted()
        var removed: [Slot] = []
        for slot in old.sorted() {
            if let index = remaining.firstIndex(of: slot) {
                remaining.remove(at: index)
            } else {
                removed.append(slot)
            }
        }
        var changes: [Change] = []
        for slot in removed {
            if let index = remaining.firstIndex(where: { abs($0.start.timeIntervalSince(slot.start)) < pairing }) {
                changes.append(Change(from: slot, to: remaining.remove(at: index)))
            } else {
                changes.append(Change(from: slot, to: nil))
            }
        }
        return changes
    }

    /// The class a meeting's UID belongs to: a moved occurrence's meeting (`uid#<original start>`)
    /// belongs to its meeting's.
    public static func series(ofUID uid: String) -> String {
        uid.split(separator: "#", maxSplits: 1).first.map(String.init) ?? uid
    }

    /// `YYYY-MM-DD HH:MM` of `instant` in `zone`, as notifications show it.
    public static func local(_ instant: Date, in zone: TimeZone) -> String {
        let time = LocalDateTime.at(instant, in: zone)
        return String(format: "%04d-%02d-%02d %02d:%02d", time.year, time.month, time.day, time.hour, time.minute)
    }
}
