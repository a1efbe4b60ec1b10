import HydrationContract

/// A day's total against the goal, and the runs of days that met it.
public enum DailyProgress {
    /// What one day added up to.
    public struct Total: Sendable, Equatable {
        public var femtolitres: Int64
        public var drinks: Int
        public init(femtolitres: Int64, drinks: Int) {
            self.femtolitres = femtolitres
            self.drinks = drinks
        }
    }

    /// Every day from `from` to `to`, in order, each against the goal it had (femtolitres);
    /// days without drinks count zero.
    public static func days(
        from: LocalDay, to: LocalDay, totals: [LocalDay: Total], goals: GoalTimeline
    ) -> [Hydration.Day] {
        (from...to).map { day in
            let total = totals[day] ?? Total(femtolitres: 0, drinks: 0)
            let goal = goals.goal(on: day)
            return Hydration.Day(
                date: day.description, total: DrinkVolume.both(femtolitres: total.femtolitres),
                goal: DrinkVolume.both(femtolitres: goal), percent: percent(total.femtolitres, of: goal),
                drinks: total.drinks, goalMet: total.femtolitres >= goal)
        }
    }

    /// `part` of `whole` in whole percent, rounded down (99.9% is not 100%).
    public static func percent(_ part: Int64, of whole: Int64) -> Int {
        guard whole > 0 else { return 100 }
        return Int(part.multipliedFullWidth(by: 100).low / UInt64(whole))
    }

    /// The runs of consecutive days with the goal met, oldest first.
    public static func streaks(_ days: [Hydration.Day]) -> [Hydration.Streak] {
        var streaks: [Hydration.Streak] = []
        var start: String?
        var last: String?
        var length = 0
        for day in days {
            if day.goalMet {
                if start == nil { start = day.date }
                last = day.date
                length += 1
            } else if let first = start, let end = last {
                streaks.append(Hydration.Streak(from: first, to: end, days: length))
                (start, last, length) = (nil, nil, 0)
            }
        }
        if let first = start, let end = last { streaks.append(Hydration.Streak(from: first, to: end, days: length)) }
        return streaks
    }

    /// The streak still running at the range's end: ending on its last day, or on the day
    /// before when the last day (today, say) has not met the goal yet.
    public static func current(_ days: [Hydration.Day], streaks: [Hydration.Streak]) -> Int {
        guard let last = streaks.last else { return 0 }
        let tail = days.suffix(2).map(\.date)
        return tail.contains(last.to) ? last.days : 0
    }
}
