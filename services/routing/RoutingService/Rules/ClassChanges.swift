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

    /// The changes from `old` to `new`, in the order of `old`. Occurrences of `old` that `new`
    /// lacks are paired with occurrences of `new` that `old` lacks and lie within ``pairing`` of
    /// them: first by the way most of them moved (the same shift of wall-clock time in `zone`,
    /// length and new place), as long as two or more moved alike, so that a series moved with
    /// one occurrence dropped pairs each occurrence with its own; then each one left with the
    /// first (by start) unpaired one left. One that pairs with nothing is cancelled. Occurrences
    /// only `new` has and that pair with nothing are not changes to announce (a class added is
    /// not one moved or cancelled).
    public static func diff(old: [Slot], new: [Slot], zone: TimeZone = TimeZone(secondsFromGMT: 0)!) -> [Change] {
        var remaining = new.sorted()
        var removed: [Slot] = []
        for slot in old.sorted() {
            if let index = remaining.firstIndex(of: slot) {
                remaining.remove(at: index)
            } else {
                removed.append(slot)
            }
        }
        var paired: [Slot: Slot] = [:]
        while true {
            // The pattern the most unpaired occurrences could have moved by.
            var olds: [Pattern: Set<Slot>] = [:]
            for slot in removed where paired[slot] == nil {
                for candidate in remaining where abs(candidate.start.timeIntervalSince(slot.start)) < pairing {
                    olds[Pattern(slot, candidate, zone: zone), default: []].insert(slot)
                }
            }
            guard let best = olds.max(by: { ($0.value.count, $1.key) < ($1.value.count, $0.key) }),
                best.value.count >= 2
            else { break }
            var progress = false
            for slot in removed where paired[slot] == nil {
                if let index = remaining.firstIndex(where: {
                    abs($0.start.timeIntervalSince(slot.start)) < pairing && Pattern(slot, $0, zone: zone) == best.key
                }) {
                    paired[slot] = remaining.remove(at: index)
                    progress = true
                }
            }
            if !progress { break }
        }
        var changes: [Change] = []
        for slot in removed {
            if let to = paired[slot] {
                changes.append(Change(from: slot, to: to))
            } else if let index = remaining.firstIndex(where: {
                abs($0.start.timeIntervalSince(slot.start)) < pairing
            }) {
                changes.append(Change(from: slot, to: remaining.remove(at: index)))
            } else {
                changes.append(Change(from: slot, to: nil))
            }
        }
        return changes
    }

    /// How far ahead a class's occurrences are compared to tell a moved series from single moved
    /// occurrences (four weeks show a weekly class four times, a fortnightly one twice).
    public static let lookahead: TimeInterval = 28 * 86_400

    /// What students are told of one class.
    public enum Notice: Sendable, Equatable {
        /// One occurrence moved or cancelled.
        case single(Change)
        /// From `first` on, every occurrence of the class at that weekday and time moves the same
        /// way (the same shift of wall-clock time, the same length, the same new place): the
        /// first of them, and how many of the look-ahead's occurrences move.
        case series(first: Change, count: Int)
    }

    /// The notices of one class from its occurrences before (`old`, those from now to
    /// ``lookahead`` ahead) and after a change (`new`, ``pairing`` further, so the last old ones
    /// find their pairs): the moves of ``diff(old:new:)`` that repeat one pattern at least twice
    /// and take every later occurrence of the same weekday and time with them become one series
    /// notice; the others, single notices. Only changes of occurrences starting before `horizon`
    /// are told (a series when its first moved occurrence is). Times are compared as wall-clock
    /// time in `zone`, so a series keeps its pattern across a daylight-saving change.
    public static func notices(old: [Slot], new: [Slot], horizon: Date, zone: TimeZone) -> [Notice] {
        let changes = diff(old: old, new: new, zone: zone)
        var groups: [Pattern: [Change]] = [:]
        for change in changes {
            guard let to = change.to else { continue }
            groups[Pattern(change.from, to, zone: zone), default: []].append(change)
        }
        var inSeries: [Slot: Pattern] = [:]
        var series: [(first: Change, count: Int)] = []
        for (pattern, members) in groups where members.count >= 2 {
            let moved = Set(members.map(\.from)).union(changes.filter { $0.to == nil }.map(\.from))
            let first = members.map(\.from.start).min()!
            let keys = Set(members.map { WeeklyKey($0.from.start, zone: zone) })
            // Every later occurrence at one of these weekdays and times moved the same way (or
            // is cancelled, which is told on its own).
            let whole = old.allSatisfy { slot in
                slot.start < first || !keys.contains(WeeklyKey(slot.start, zone: zone)) || moved.contains(slot)
            }
            guard whole else { continue }
            for member in members { inSeries[member.from] = pattern }
            let earliest = members.min { $0.from.start < $1.from.start }!
            series.append((earliest, members.count))
        }
        var notices: [(start: Date, notice: Notice)] = []
        for entry in series where entry.first.from.start < horizon {
            notices.append((entry.first.from.start, .series(first: entry.first, count: entry.count)))
        }
        for change in changes where change.from.start < horizon && inSeries[change.from] == nil {
            notices.append((change.from.start, .single(change)))
        }
        return notices.sorted { $0.start < $1.start }.map { $0.notice }
    }

    /// How an occurrence moved: the shift of its wall-clock start, its new length and place.
    struct Pattern: Hashable, Comparable {
        var shift: Int
        var length: TimeInterval
        var place: String

        init(_ from: Slot, _ to: Slot, zone: TimeZone) {
            shift = Self.wallClock(to.start, zone) - Self.wallClock(from.start, zone)
            length = to.end.timeIntervalSince(to.start)
            place = to.place
        }

        /// Patterns in a fixed order (ties between equally common ones go to the first).
        static func < (lhs: Pattern, rhs: Pattern) -> Bool {
            (abs(lhs.shift), lhs.shift, lhs.length, lhs.place) < (abs(rhs.shift), rhs.shift, rhs.length, rhs.place)
        }

        /// Seconds since 1970-01-01 00:00 of the wall-clock time of `instant` in `zone`.
        static func wallClock(_ instant: Date, _ zone: TimeZone) -> Int {
            let local = LocalDateTime.at(instant, in: zone)
            return local.dayNumber * 86_400 + local.secondOfDay
        }
    }

    /// The weekday and wall-clock time of an occurrence: what "every later one" of a weekly class
    /// shares.
    struct WeeklyKey: Hashable {
        var weekday: Int
        var secondOfDay: Int

        init(_ instant: Date, zone: TimeZone) {
            let local = LocalDateTime.at(instant, in: zone)
            weekday = local.weekday
            secondOfDay = local.secondOfDay
        }
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
