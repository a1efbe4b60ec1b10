import Contract
import Foundation
import HydrationContract
import Logging
import PostgresNIO
import ServiceKit
import Store

/// The `hydration.plans` table: each user's daily goal and reminders. Saving a plan writes
/// `hydration.plan_changed` to the event log in the same transaction (notify schedules the
/// reminders from it).
public struct PlanStore: Sendable {
    let client: PostgresClient
    let events: EventPublisher
    let logger: Logger

    public init(client: PostgresClient, events: EventPublisher, logger: Logger) {
        self.client = client
        self.events = events
        self.logger = logger
    }

    /// The user's plan, or nil when they never set one.
    public func plan(of user: UUID) async throws -> DailyPlan? {
        let rows = try await client.fetch(
            """
            SELECT goal_amount, goal_unit, reminders_per_day, wake_minute, sleep_minute, time_zone
            FROM hydration.plans WHERE user_id = \(user)
            """, logger: logger)
        for try await (amount, unit, reminders, wake, sleep, zone) in rows.decode(
            (Int32, String, Int32, Int32, Int32, String).self)
        {
            guard let wakeTime = ClockTime(minutes: Int(wake)), let sleepTime = ClockTime(minutes: Int(sleep)) else {
                continue
            }
            return DailyPlan(
                goal: DrinkVolume(amount: Int(amount), unit: Hydration.Unit(rawValue: unit) ?? .ml),
                remindersPerDay: Int(reminders), wake: wakeTime, sleep: sleepTime, timeZone: zone)
        }
        return nil
    }

    /// The user's goals: each saved goal from the local day it was saved on (the standard goal
    /// when they never saved one). All of them, also those after the days asked about: the
    /// days before the first saved goal count against it.
    public func goals(of user: UUID) async throws -> GoalTimeline {
        let rows = try await client.fetch(
            """
            SELECT (since_day - DATE '1970-01-01')::int4, goal_amount, goal_unit
            FROM hydration.goals WHERE user_id = \(user) ORDER BY since_day
            """, logger: logger)
        var changes: [GoalTimeline.Change] = []
        for try await (since, amount, unit) in rows.decode((Int32, Int32, String).self) {
            let goal = DrinkVolume(amount: Int(amount), unit: Hydration.Unit(rawValue: unit) ?? .ml)
            changes.append(.init(since: LocalDay(daysSinceEpoch: Int(since)), femtolitres: goal.femtolitres))
        }
        return GoalTimeline(changes: changes, unset: DailyPlan.standard.goal.femtolitres)
    }

    /// Saves the user's plan with its `hydration.plan_changed` event, and its goal as the goal
    /// from `today` (the user's local day in the plan's zone) on when it differs from the goal
    /// before; announces the event after commit.
    public func save(_ plan: DailyPlan, for user: UUID, today: LocalDay, now: Date, requestId: String?) async throws {
        let event = try await client.transaction(logger: logger) { connection in
            // A second change on one day replaces the first; an unchanged goal adds no row.
            try await connection.fetch(
                """
                INSERT INTO hydration.goals (user_id, since_day, goal_amount, goal_unit)
                SELECT \(user), DATE '1970-01-01' + \(today.daysSinceEpoch)::int4, \(Int32(plan.goal.amount)),
                       \(plan.goal.unit.rawValue)
                WHERE NOT EXISTS (
                    SELECT 1 FROM (
                        SELECT goal_amount, goal_unit FROM hydration.goals
                        WHERE user_id = \(user) AND since_day < DATE '1970-01-01' + \(today.daysSinceEpoch)::int4
                        ORDER BY since_day DESC LIMIT 1) AS latest
                    WHERE latest.goal_amount = \(Int32(plan.goal.amount)) AND latest.goal_unit = \(plan.goal.unit.rawValue))
                ON CONFLICT (user_id, since_day) DO UPDATE
                    SET goal_amount = excluded.goal_amount, goal_unit = excluded.goal_unit
                """, logger: logger)
            try await connection.fetch(
                """
                INSERT INTO hydration.plans (user_id, goal_amount, goal_unit, reminders_per_day, wake_minute,
                    sleep_minute, time_zone, updated_at)
                VALUES (\(user), \(Int32(plan.goal.amount)), \(plan.goal.unit.rawValue), \(Int32(plan.remindersPerDay)),
                    \(Int32(plan.wake.minutes)), \(Int32(plan.sleep.minutes)), \(plan.timeZone), \(now))
                ON CONFLICT (user_id) DO UPDATE SET goal_amount = excluded.goal_amount, goal_unit = excluded.goal_unit,
                    reminders_per_day = excluded.reminders_per_day, wake_minute = excluded.wake_minute,
                    sleep_minute = excluded.sleep_minute, time_zone = excluded.time_zone,
                    updated_at = excluded.updated_at
                """, logger: logger)
            return try await events.append(
                topic: Hydration.PlanChanged.topic,
                payload: Hydration.PlanChanged(
                    userId: user.uuidString.lowercased(), timesOfDay: plan.reminderTimes.map(\.description),
                    timeZone: plan.timeZone),
                requestId: requestId, in: Transaction(connection: connection, logger: logger))
        }
        events.announce(event)
    }

    /// Forgets the user's plan (after `auth.account_deleted`; notify forgets the schedules itself).
    public func forget(_ user: UUID, in tx: Transaction) async throws {
        try await tx.connection.fetch("DELETE FROM hydration.plans WHERE user_id = \(user)", logger: tx.logger)
        try await tx.connection.fetch("DELETE FROM hydration.goals WHERE user_id = \(user)", logger: tx.logger)
    }
}
