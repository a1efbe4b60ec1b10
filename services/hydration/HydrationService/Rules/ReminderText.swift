import Foundation
import HydrationContract

/// What a reminder says: how much to drink now, so that what is left of the day's goal is shared
/// over the reminders still to come that day, this one included ("Time for a glass: 8 oz now
/// keeps you on track for 64 oz"). The amount is rounded up to the app's sizes (whole drinks of
/// 4 oz, named as bottles, glasses and a drink), in the user's unit. Nothing once the goal is met.
public enum ReminderText {
    /// One reminder's advice.
    public struct Reminder: Sendable, Equatable {
        /// What to drink now, in femtolitres: a whole number of drinks.
        public var amount: Int64
        /// What is left of the day's goal, in femtolitres.
        public var remaining: Int64
        /// How many of the day's reminders are still to come, this one included.
        public var remindersLeft: Int
        public var text: String
    }

    /// The smallest of the app's sizes, which every amount is a whole number of.
    static let drink = 400 * DrinkVolume.femtolitresPerCentiOunce

    /// The reminder `plan` sends at `micros` (its due time) after `logged` femtolitres that local
    /// day; nil once the goal is met. The plan's time zone, with its offset at that instant,
    /// says which of the day's reminders this is.
    public static func reminder(plan: DailyPlan, logged: Int64, at micros: Int64) -> Reminder? {
        let remaining = plan.goal.femtolitres - logged
        guard remaining > 0 else { return nil }
        let left = remindersLeft(plan: plan, at: localTime(at: micros, in: plan.timeZone))
        let share = (remaining + Int64(left) - 1) / Int64(left)
        let drinks = max(1, (share + drink - 1) / drink)
        let amount = drinks * drink
        let text =
            "Time for \(sizes(drinks)): \(volume(amount, in: plan.goal.unit)) now keeps you on track for "
            + goal(plan.goal)
        return Reminder(amount: amount, remaining: remaining, remindersLeft: left, text: text)
    }

    /// The reminders of the plan's day at or after `time`, counted in waking order (waking
    /// hours may span midnight); at least 1, so a reminder after the last one asks for all
    /// that is left.
    static func remindersLeft(plan: DailyPlan, at time: ClockTime) -> Int {
        func sinceWaking(_ time: ClockTime) -> Int { (time.minutes - plan.wake.minutes + 1_440) % 1_440 }
        let now = sinceWaking(time)
        return max(1, plan.reminderTimes.count { sinceWaking($0) >= now })
    }

    /// The clock time at `micros` in `timeZone`, with the zone's offset at that instant.
    static func localTime(at micros: Int64, in timeZone: String) -> ClockTime {
        let zone = TimeZone(identifier: timeZone) ?? TimeZone(secondsFromGMT: 0)!
        let seconds = LocalMoment.floorDiv(micros, 1_000_000)
        let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
        let inDay = (seconds + Int64(offset)) - LocalMoment.floorDiv(seconds + Int64(offset), 86_400) * 86_400
        return ClockTime(minutes: Int(inDay / 60))!
    }

    /// `drinks` drinks as the app's sizes: "a glass", "a bottle and a drink", "two bottles, a
    /// glass and a drink".
    static func sizes(_ drinks: Int64) -> String {
        let bottles = drinks / 4
        var parts: [String] = []
        if bottles > 0 { parts.append(bottles == 1 ? "a bottle" : "\(words(bottles)) bottles") }
        if drinks % 4 >= 2 { parts.append("a glass") }
        if drinks % 2 == 1 { parts.append("a drink") }
        guard parts.count > 1 else { return parts.first ?? "a drink" }
        return parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1]
    }

    /// An amount of the app's sizes in `unit`: whole ounces (4 oz a drink), or whole millilitres.
    static func volume(_ femtolitres: Int64, in unit: Hydration.Unit) -> String {
        let both = DrinkVolume.both(femtolitres: femtolitres)
        guard unit == .oz else { return "\(both.ml) ml" }
        return "\(ounces(centi: Int(femtolitres / DrinkVolume.femtolitresPerCentiOunce))) oz"
    }

    /// The goal as the user set it.
    static func goal(_ goal: DrinkVolume) -> String {
        goal.unit == .ml ? "\(goal.amount) ml" : "\(ounces(centi: goal.amount)) oz"
    }

    /// Hundredths of an ounce as "64", "64.5" or "64.25".
    static func ounces(centi: Int) -> String {
        let whole = "\(centi / 100)"
        let cents = centi % 100
        if cents == 0 { return whole }
        return cents % 10 == 0 ? "\(whole).\(cents / 10)" : "\(whole).\(LocalDay.pad(cents, 2))"
    }

    static func words(_ count: Int64) -> String {
        let names = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
        return count < names.count ? names[Int(count)] : "\(count)"
    }
}
