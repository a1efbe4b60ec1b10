/// The daily goals a user has had, each from the local day it was chosen on: a past day is
/// measured against the goal it had, so raising the goal today does not rewrite last month's
/// percentages and streaks.
public struct GoalTimeline: Sendable, Equatable {
    /// A goal (in femtolitres) that holds from `since` until the next change.
    public struct Change: Sendable, Equatable {
        public var since: LocalDay
        public var femtolitres: Int64
        public init(since: LocalDay, femtolitres: Int64) {
            self.since = since
            self.femtolitres = femtolitres
        }
    }

    /// The changes, oldest first.
    public let changes: [Change]
    /// The goal of the days before the first change: the first goal the user chose (days logged
    /// before they set one count against it), or `unset` when they never chose one.
    public let before: Int64

    /// `changes` in any order (two on one day keep the later in the list); `unset` is the goal
    /// of every day when there are none.
    public init(changes: [Change], unset: Int64) {
        var byDay: [LocalDay: Int64] = [:]
        for change in changes { byDay[change.since] = change.femtolitres }
        self.changes = byDay.map { Change(since: $0.key, femtolitres: $0.value) }.sorted { $0.since < $1.since }
        self.before = self.changes.first?.femtolitres ?? unset
    }

    /// The goal on `day`: the latest change on or before it.
    public func goal(on day: LocalDay) -> Int64 {
        var low = 0
        var high = changes.count
        while low < high {
            let middle = (low + high) / 2
            if changes[middle].since <= day { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? before : changes[low - 1].femtolitres
    }
}
