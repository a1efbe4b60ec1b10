import AuthContract
import Contract
import Foundation
import HydrationContract
import ServiceKit
import Store

/// The daily plan, and what a reminder says when it fires.
public struct PlanHandler: Sendable {
    let plans: PlanStore
    let drinks: DrinkStore
    let clock: any WallClock

    public init(plans: PlanStore, drinks: DrinkStore, clock: any WallClock) {
        self.plans = plans
        self.drinks = drinks
        self.clock = clock
    }

    /// `get_plan`.
    public func get(_ request: Empty, _ context: OperationContext) async throws -> Hydration.PlanReply {
        let user = try context.userId()
        if let plan = try await plans.plan(of: user) { return plan.reply(saved: true) }
        return DailyPlan.standard.reply(saved: false)
    }

    /// `set_plan`: saved with its `hydration.plan_changed` event, which reschedules the reminders.
    public func set(_ request: Hydration.Plan, _ context: OperationContext) async throws -> Hydration.PlanReply {
        let user = try context.userId()
        let plan = try PlanRules.validate(request)
        let now = clock.now()
        let today = PlanRules.day(at: now.micros, in: plan.timeZone)
        try await plans.save(plan, for: user, today: today, now: now, requestId: context.metadata.requestId)
        return plan.reply(saved: true)
    }

    /// `reminder_text`: asked by notify when a reminder fires (a service call: no user, or an admin).
    public func reminderText(_ request: Hydration.ReminderText.Request, _ context: OperationContext) async throws
        -> Hydration.ReminderText.Reply
    {
        if context.metadata.actor != nil { _ = try context.requireRole(Auth.Role.admin) }
        guard let user = UUID(uuidString: request.userId) else {
            throw ServiceError.invalidArgument("userId must be a UUID", field: "userId")
        }
        guard let plan = try await plans.plan(of: user), plan.remindersPerDay > 0 else {
            return .init(skip: true, text: nil, remaining: nil, unplanned: true)
        }
        let at = request.at * 1_000
        let day = PlanRules.day(at: at, in: plan.timeZone)
        let total = try await drinks.totals(of: user, from: day, to: day)[day]?.femtolitres ?? 0
        guard let reminder = ReminderText.reminder(plan: plan, logged: total, at: at) else {
            return .init(skip: true, text: nil, remaining: nil)
        }
        return .init(
            skip: false, text: reminder.text, remaining: DrinkVolume.both(femtolitres: reminder.remaining),
            amount: DrinkVolume.both(femtolitres: reminder.amount))
    }
}
