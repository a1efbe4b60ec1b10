import Contract
import Foundation
import HydrationContract

/// A daily plan that passed its checks.
public struct DailyPlan: Sendable, Equatable {
    public var goal: DrinkVolume
    public var remindersPerDay: Int
    public var wake: ClockTime
    public var sleep: ClockTime
    public var timeZone: String

    /// The plan of a user who never set one: 64 oz (eight glasses), no reminders.
    public static let standard = DailyPlan(
        goal: .centiOunces(6_400), remindersPerDay: 0, wake: ClockTime(minutes: 420)!,
        sleep: ClockTime(minutes: 1_320)!, timeZone: "UTC")

    public init(goal: DrinkVolume, remindersPerDay: Int, wake: ClockTime, sleep: ClockTime, timeZone: String) {
        self.goal = goal
        self.remindersPerDay = remindersPerDay
        self.wake = wake
        self.sleep = sleep
        self.timeZone = timeZone
    }

    /// The reminders' local times.
    public var reminderTimes: [ClockTime] { ReminderTimes.spread(count: remindersPerDay, wake: wake, sleep: sleep) }

    /// As the plan endpoints answer it.
    public func reply(saved: Bool) -> Hydration.PlanReply {
        Hydration.PlanReply(
            plan: Hydration.Plan(
                dailyGoal: goal.input.value, unit: goal.unit, remindersPerDay: remindersPerDay,
                wake: wake.description, sleep: sleep.description, timeZone: timeZone),
            goal: goal.both, reminderTimes: reminderTimes.map(\.description), saved: saved)
    }
}

/// What a plan must be: a goal over 0 and at most 10 litres (in the user's unit), 0 to 24
/// reminders, wake and sleep as `HH:mm` at least 30 minutes apart, a known IANA time zone.
public enum PlanRules {
    /// The largest daily goal: 10 litres.
    public static let maximumGoalFemtolitres: Int64 = 10_000 * DrinkVolume.femtolitresPerMillilitre

    public static func validate(_ plan: Hydration.Plan) throws(ServiceError) -> DailyPlan {
        guard plan.dailyGoal.isFinite, plan.dailyGoal > 0 else {
            throw ServiceError.invalidArgument("dailyGoal must be more than 0", field: "dailyGoal")
        }
        let scaled = plan.unit == .ml ? plan.dailyGoal : plan.dailyGoal * 100
        let whole = scaled.rounded()
        guard abs(scaled - whole) < 1e-6, whole >= 1 else {
            let precision = plan.unit == .ml ? "whole millilitres" : "ounces to two decimals"
            throw ServiceError.invalidArgument("dailyGoal must be in \(precision)", field: "dailyGoal")
        }
        guard whole <= 10_000_000,
            DrinkVolume(amount: Int(whole), unit: plan.unit).femtolitres <= maximumGoalFemtolitres
        else {
            throw ServiceError.invalidArgument("dailyGoal must be at most 10 litres", field: "dailyGoal")
        }
        let exact = DrinkVolume(amount: Int(whole), unit: plan.unit)
        guard (0...ReminderTimes.maximumPerDay).contains(plan.remindersPerDay) else {
            throw ServiceError.invalidArgument("remindersPerDay must be 0 to 24", field: "remindersPerDay")
        }
        let wake = try ClockTime.parse(plan.wake, field: "wake")
        let sleep = try ClockTime.parse(plan.sleep, field: "sleep")
        let gap = (sleep.minutes - wake.minutes + 1_440) % 1_440
        guard gap >= 30 else {
            throw ServiceError.invalidArgument("sleep must be at least 30 minutes after wake", field: "sleep")
        }
        guard plan.timeZone.count <= 64, TimeZone(identifier: plan.timeZone) != nil else {
            throw ServiceError.invalidArgument(
                "timeZone must be an IANA time zone, e.g. Europe/Stockholm", field: "timeZone")
        }
        return DailyPlan(
            goal: exact, remindersPerDay: plan.remindersPerDay, wake: wake, sleep: sleep, timeZone: plan.timeZone)
    }

    /// The user's day at `micros` in the plan's time zone (its offset at that instant, so a
    /// day that changes to or from daylight saving time is still one day).
    public static func day(at micros: Int64, in timeZone: String) -> LocalDay {
        let zone = TimeZone(identifier: timeZone) ?? TimeZone(secondsFromGMT: 0)!
        let seconds = LocalMoment.floorDiv(micros, 1_000_000)
        let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return LocalDay(localSeconds: seconds + Int64(offset))
    }
}
