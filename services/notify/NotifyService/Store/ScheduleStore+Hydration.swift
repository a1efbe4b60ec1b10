import Contract
import Foundation
import HydrationContract
import NotifyContract
import PostgresNIO
import ServiceKit
import Store

extension ScheduleStore {
    /// The kinds whose text is composed when they fire, by the service that knows it: a due
    /// occurrence becomes a ``Composer`` job rather than a notification.
    public static let composedKinds: [Notify.Kind: ServiceName] = [Notify.Kind.hydrationReminder: .hydration]

    /// The id of a user's TapWater reminder schedule (one per user, replaced on every plan change).
    public static func hydrationScheduleId(of userId: UUID) -> UUID {
        DerivedID.make("hydration-plan", userId.uuidString.lowercased())
    }

    /// ``applyPlan(_:on:)`` in the consumer's transaction `tx`.
    public func applyPlan(_ change: Hydration.PlanChanged, in tx: Transaction) async throws {
        try await applyPlan(change, on: tx.connection)
    }

    /// Drops the composed schedule of `kind` of `userId`: its owner has no such plan any more.
    func dropComposedSchedule(of userId: UUID, kind: Notify.Kind) async throws {
        try await client.fetch(
            """
            DELETE FROM \(unescaped: schema).schedules
            WHERE id = \(Self.hydrationScheduleId(of: userId)) AND kind = \(kind.rawValue)
            """, logger: logger)
    }

    /// Applies `hydration.plan_changed` in the caller's transaction: the user's reminder schedule
    /// takes the plan's times and time zone (its next occurrence recomputed now), or goes when
    /// the plan has no reminders. Event order per user is log order, so the last plan wins.
    public func applyPlan(_ change: Hydration.PlanChanged, on connection: PostgresConnection) async throws {
        guard let userId = UUID(uuidString: change.userId) else { return }
        let id = Self.hydrationScheduleId(of: userId)
        let times = change.timesOfDay.compactMap { try? TimeOfDay(parsing: $0, field: "timesOfDay") }
        guard !times.isEmpty, let zone = try? LocalTime(change.timeZone),
            let recurrence = try? Recurrence(once: nil, times: times, days: [])
        else {
            try await connection.fetch(
                "DELETE FROM \(unescaped: schema).schedules WHERE id = \(id)", logger: logger)
            return
        }
        let now = clock.now()
        let next = recurrence.next(after: now, in: zone)
        try await connection.fetch(
            """
            INSERT INTO \(unescaped: schema).schedules (id, user_id, kind, variables, once_at, times_of_day, days_of_week,
                time_zone, next_at, created_at)
            VALUES (\(id), \(userId), \(Notify.Kind.hydrationReminder.rawValue), '{}'::jsonb, NULL,
                \(recurrence.times.map(\.minutes)), \([Int]()), \(change.timeZone), \(next), \(now))
            ON CONFLICT (id) DO UPDATE SET times_of_day = excluded.times_of_day, time_zone = excluded.time_zone,
                next_at = excluded.next_at
            """, logger: logger)
    }
}
