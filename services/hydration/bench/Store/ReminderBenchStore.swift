import Foundation
import Logging
import NotifyContract
import NotifyService
import PostgresNIO
import ServiceKit
import Store

/// The rows of the reminder case: plans in `hydration.plans`, and notify's tables in a schema of
/// their own holding one reminder per user.
struct ReminderBenchStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// A schema of notify's with `users` users, each with a plan (64 oz, 4 reminders a day) in
    /// hydration and one reminder, their due times spread over the day from `start`; answers the
    /// schema's name.
    func seed(users: Int, start: Date) async throws -> String {
        let schema = "bench_hyd_notify_" + UUID().uuidString.lowercased().prefix(8)
        try await Migrator(client: client, schema: schema, logger: logger).migrate(NotifyService.migrations())
        try await client.withConnection { connection in
            try await connection.fetch(
                """
                CREATE TEMP TABLE bench_users AS
                SELECT gen_random_uuid() AS user_id,
                       \(start)::timestamptz + make_interval(secs => i * 86400.0 / \(users)) AS due
                FROM generate_series(1, \(users)) AS i
                """, logger: logger)
            try await connection.fetch(
                """
                INSERT INTO hydration.plans (user_id, goal_amount, goal_unit, reminders_per_day, wake_minute,
                    sleep_minute, time_zone, updated_at)
                SELECT user_id, 6400, 'oz', 4, 420, 1320, 'America/New_York', now() FROM bench_users
                """, logger: logger)
            try await connection.fetch(
                """
                INSERT INTO \(unescaped: schema).schedules
                    (id, user_id, kind, variables, once_at, time_zone, next_at, created_at)
                SELECT gen_random_uuid(), user_id, \(Notify.Kind.hydrationReminder.rawValue), '{}'::jsonb, due, 'UTC', due,
                    \(start)
                FROM bench_users
                """, logger: logger)
        }
        return String(schema)
    }

    /// notify's notification and schedule stores on `schema`.
    func notifyStores(schema: String, clock: any WallClock) -> (NotificationStore, ScheduleStore) {
        let queue = JobQueue(client: client, schema: schema, clock: clock, logger: logger)
        let notifications = NotificationStore(client: client, queue: queue, clock: clock, logger: logger)
        return (notifications, ScheduleStore(notifications: notifications, logger: logger))
    }

    /// Each notification's lateness in real time, ms, ascending: (commit - due) / `compression`
    /// (one schedule per user).
    func lateness(schema: String, compression: Double) async throws -> [Double] {
        let rows = try await client.fetch(
            """
            SELECT (extract(epoch FROM n.created_at - s.once_at) * 1000 / \(compression))::float8
            FROM \(unescaped: schema).notifications n JOIN \(unescaped: schema).schedules s ON s.user_id = n.user_id
            ORDER BY 1
            """, logger: logger)
        var lateness: [Double] = []
        for try await value in rows.decode(Double.self) { lateness.append(value) }
        return lateness
    }

    /// Removes the plans the seed made and the schema.
    func drop(schema: String) async throws {
        try await client.fetch(
            "DELETE FROM hydration.plans WHERE user_id IN (SELECT user_id FROM \(unescaped: schema).schedules)",
            logger: logger)
        try await client.fetch("DROP SCHEMA \(unescaped: schema) CASCADE", logger: logger)
    }
}
