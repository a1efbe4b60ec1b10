import Foundation
import NotifyService
import PostgresNIO
import Store
import Testing

/// Scheduler lateness with many reminders due over a day, the day compressed in time.
@Suite("notify: scheduler lateness benchmark")
struct SchedulerBenchTests {
    @Test("N one-off reminders spread over a day compressed 1,440x (a day in a minute): each fires once; prints p99")
    func lateness() async throws {
        let count = Int(ProcessInfo.processInfo.environment["NOTIFY_BENCH_REMINDERS"] ?? "") ?? 2_000
        let compression = 1440.0
        let clock = ManualClock()
        let start = clock.now()
        try await NotifyWorld.with(clock: clock) { world in
            try await world.client.query(
                """
                INSERT INTO \(unescaped: world.schema).schedules
                    (id, user_id, kind, variables, once_at, time_zone, next_at, created_at)
                SELECT gen_random_uuid(), gen_random_uuid(), 'reminder', '{"text": "Drink water"}'::jsonb, t, 'UTC',
                    t, \(start)
                FROM (SELECT \(start)::timestamptz + make_interval(secs => i * 86400.0 / \(count)) AS t
                      FROM generate_series(1, \(count)) AS i) AS due
                """, logger: NotifyWorld.logger)
            let began = ContinuousClock.now
            let driver = Task {
                while !Task.isCancelled {
                    let elapsed = (ContinuousClock.now - began) / .seconds(1)
                    clock.set(start.addingTimeInterval(elapsed * compression))
                    try? await Task.sleep(for: .milliseconds(5))
                }
            }
            defer { driver.cancel() }
            var lateness: [Double] = []
            while lateness.count < count && ContinuousClock.now - began < .seconds(86_400 / compression + 60) {
                let due = try await world.schedules.fireDue()
                let now = clock.now()
                lateness += due.map { now.timeIntervalSince($0) / compression }
                if due.count < 500 { try await Task.sleep(for: .milliseconds(250)) }
            }
            lateness.sort()
            let p99 =
                lateness.isEmpty ? .infinity : lateness[min(lateness.count - 1, Int(Double(lateness.count) * 0.99))]
            let p50 = lateness.isEmpty ? .infinity : lateness[lateness.count / 2]
            print(
                "notify scheduler lateness: \(lateness.count) reminders over a day compressed \(Int(compression))x, "
                    + "p50 \(Int(p50 * 1000)) ms, p99 \(Int(p99 * 1000)) ms, max \(Int((lateness.last ?? 0) * 1000)) ms "
                    + "(poll 250 ms, one replica, debug build)")
            #expect(lateness.count == count)
            let notifications = try await world.count(
                "SELECT count(*)::int8 FROM \(unescaped: world.schema).notifications")
            #expect(notifications == count, "each occurrence once")
        }
    }
}
