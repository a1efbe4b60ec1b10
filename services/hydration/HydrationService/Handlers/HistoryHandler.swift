import Contract
import Foundation
import HydrationContract
import ServiceKit

/// `history`: the user's days against the goal, and the streaks of days that met it.
public struct HistoryHandler: Sendable {
    let drinks: DrinkStore
    let plans: PlanStore

    public init(drinks: DrinkStore, plans: PlanStore) {
        self.drinks = drinks
        self.plans = plans
    }

    public func history(_ request: Hydration.History.Request, _ context: OperationContext) async throws
        -> Hydration.History.Reply
    {
        let user = try context.userId()
        let from = try LocalDay.parse(request.from, field: "from")
        let to = try LocalDay.parse(request.to, field: "to")
        guard from <= to else { throw ServiceError.invalidArgument("to must not be before from", field: "to") }
        guard from.distance(to: to) < Hydration.History.maxDays else {
            throw ServiceError.invalidArgument(
                "at most \(Hydration.History.maxDays) days per call", field: "to")
        }
        let goals = try await plans.goals(of: user)
        let totals = try await drinks.totals(of: user, from: from, to: to)
        let days = DailyProgress.days(from: from, to: to, totals: totals, goals: goals)
        let streaks = DailyProgress.streaks(days)
        return .init(
            days: days, streaks: streaks, longestStreak: streaks.map(\.days).max() ?? 0,
            currentStreak: DailyProgress.current(days, streaks: streaks))
    }
}
