import Contract
import Foundation
import HydrationContract
import HydrationService
import NotifyContract
import NotifyService
import PostgresNIO
import ServiceKit
import Store

/// Reminder lateness with the text composed at fire time: `users` users with a plan (hydration
/// schema, real rows), one reminder each, due times spread over a day compressed `compression`
/// times, fired by notify's scheduler (`fireDue`) and composed by notify's `Composer`, which
/// asks hydration's `reminder_text` through the service's operation table (no broker). Lateness
/// runs from an occurrence's due time to the commit of its notification, in real time.
struct ReminderBench {
    let bench: Bench
    let client: PostgresClient
    var users = 100_000
    var compression = 1_440.0
    var composers = 2

    func run() async throws {
        let logger = SyncBench.logger
        let clock = ManualClock()
        let start = clock.now()
        let schema = "bench_hyd_notify_" + UUID().uuidString.lowercased().prefix(8)
        try await Migrator(client: client, schema: schema, logger: logger).migrate(NotifyService.migrations())
        // Plans in hydration (64 oz, 4 reminders a day) and one reminder each in notify.
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
        let queue = JobQueue(client: client, schema: schema, clock: clock, logger: logger)
        let store = NotificationStore(client: client, queue: queue, clock: clock, logger: logger)
        let schedules = ScheduleStore(notifications: store, logger: logger)
        let (wake, _) = AsyncStream.makeStream(of: Void.self)
        let router = bench.router
        let texts = Composer.Texts { occurrence in
            let metadata = RequestMetadata(requestId: "bench")
            let frames = try Wire.encodeRequest(
                operation: Hydration.ReminderText.name, metadata: metadata,
                payload: Hydration.ReminderText.Request(
                    userId: occurrence.userId.uuidString.lowercased(), at: occurrence.dueAtMs))
            let reply = try Wire.decodeReply(Hydration.ReminderText.Reply.self, from: await router.handle(frames))
            return Composer.Texts.text(of: reply)
        }
        var configured = Composer(store: store, texts: texts, wake: wake, logger: logger) {}
        configured.batch = 64
        let composer = configured
        let began = ContinuousClock.now
        let driver = Task {
            while !Task.isCancelled {
                clock.set(start.addingTimeInterval(Bench.ms(ContinuousClock.now - began) / 1_000 * compression))
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
        defer { driver.cancel() }
        let dayEnds = start.addingTimeInterval(86_400)
        let limit = Duration.seconds(86_400 / compression + 120)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while ContinuousClock.now - began < limit {
                    let dayOver = clock.now() > dayEnds
                    let fired = try await schedules.fireDue(limit: 500)
                    if fired.count < 500 {
                        if dayOver { break }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                }
            }
            for _ in 0..<composers {
                group.addTask {
                    var idleAfterDay = 0
                    while ContinuousClock.now - began < limit, idleAfterDay < 20 {
                        let claimed = try await composer.runOnce()
                        if claimed == 0 {
                            if clock.now() > dayEnds { idleAfterDay += 1 }
                            try await Task.sleep(for: .milliseconds(20))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        // Lateness in real time: (commit - due) / compression; one schedule per user.
        let rows = try await client.fetch(
            """
            SELECT (extract(epoch FROM n.created_at - s.once_at) * 1000 / \(compression))::float8
            FROM \(unescaped: schema).notifications n JOIN \(unescaped: schema).schedules s ON s.user_id = n.user_id
            ORDER BY 1
            """, logger: logger)
        var lateness: [Double] = []
        for try await value in rows.decode(Double.self) { lateness.append(value) }
        try await client.fetch(
            "DELETE FROM hydration.plans WHERE user_id IN (SELECT user_id FROM \(unescaped: schema).schedules)",
            logger: logger)
        try await client.fetch("DROP SCHEMA \(unescaped: schema) CASCADE", logger: logger)
        print(
            String(
                format:
                    "reminders composed at fire time: %d of %d sent over a day compressed %.0fx (%.0f due/s); lateness p50 %.0f ms, p99 %.0f ms, max %.0f ms (%d composers)",
                lateness.count, users, compression, Double(users) / (86_400 / compression),
                Bench.percentile(lateness, 0.5), Bench.percentile(lateness, 0.99), lateness.last ?? 0, composers))
    }
}
