import Contract
import Foundation
import HydrationContract
import HydrationService
import Logging
import NotifyContract
import NotifyService
import PostgresNIO
import ServiceKit
import Store
import TestSupport
import Testing

/// TapWater's reminders end to end in one process, with real PostgreSQL and real ZeroMQ: the plan
/// is saved by hydration, its event reschedules notify's durable scheduler, an occurrence fires
/// on notify's clock, and notify's composer asks hydration over the broker how much to drink at
/// that moment. The clocks are manual: no test waits for a time to pass.
@Suite("hydration: reminders through notify's scheduler, text at fire time (PostgreSQL, ZeroMQ)")
struct ReminderTests {
    static func millis(_ text: String) throws -> Int64 { try LocalMoment.parse(text, field: "t").micros / 1_000 }
    static func date(_ text: String) throws -> Date { Date(timeIntervalSince1970: Double(try millis(text)) / 1_000) }

    /// A broker with one hydration worker on `db`'s router, and a bus client to it.
    static func withBus(_ db: HydrationDatabase, _ body: @Sendable (BusClient) async throws -> Void) async throws {
        try await InProcessBus.with(db.router, logger: HydrationDatabase.logger) { _, bus in try await body(bus) }
    }

    @Test("across the end of daylight saving time: on time, the amount left when it fires, none once the goal is met")
    func remindersAcrossDST() async throws {
        try await HydrationDatabase.with { db in
            let notifyClock = ManualClock(try Self.date("2026-11-01T03:00:00Z"))  // 23:00 EDT, 31 October
            let schema = "t_hyd_notify_" + UUID().uuidString.lowercased().prefix(8)
            try await Migrator(client: db.client, schema: schema, logger: HydrationDatabase.logger)
                .migrate(NotifyService.migrations())
            let queue = JobQueue(
                client: db.client, schema: schema, clock: notifyClock, backoff: Backoff(base: 1, cap: 10),
                logger: HydrationDatabase.logger)
            let store = NotificationStore(
                client: db.client, queue: queue, clock: notifyClock, logger: HydrationDatabase.logger)
            let schedules = ScheduleStore(notifications: store, logger: HydrationDatabase.logger)
            let user = UUID()
            let (wake, _) = AsyncStream.makeStream(of: Void.self)

            _ = try await db.call(
                Hydration.SetPlan.self,
                .init(
                    dailyGoal: 32, unit: .oz, remindersPerDay: 3, wake: "08:00", sleep: "20:00",
                    timeZone: "America/New_York"),
                as: user)
            let event = try #require(try await db.planEvents(of: user).last)
            try await db.client.withConnection { try await schedules.applyPlan(event, on: $0) }
            let schedule = try #require(try await schedules.list(of: user).first)
            #expect(
                schedule.kind == Notify.Kind.hydrationReminder && schedule.timesOfDay == ["11:00", "14:00", "17:00"])
            // 11:00 on 1 November is EST (UTC-5): 16:00Z, not the 15:00Z of yesterday's offset.
            #expect(schedule.nextAt == (try Self.millis("2026-11-01T16:00:00Z")))

            // A glass at 00:10 EDT counts for the 1st.
            _ = try await db.call(
                Hydration.LogDrink.self,
                .init(uuid: UUID().uuidString, category: "glass", drankAt: "2026-11-01T00:10:00-04:00"), as: user)

            try await Self.withBus(db) { bus in
                let composer = Composer(
                    store: store, texts: .overBus(bus), wake: wake, logger: HydrationDatabase.logger
                ) {}
                func inbox() async throws -> [Notify.InboxItem] {
                    try await store.inbox(of: user, .init()).items
                }
                #expect(try await schedules.fireDue().isEmpty, "nothing is due at 23:00 EDT")
                notifyClock.set(try Self.date("2026-11-01T16:00:01Z"))
                #expect(try await schedules.fireDue().count == 1)
                #expect(try await schedules.fireDue().isEmpty, "an occurrence fires once")
                #expect(try await inbox().isEmpty, "the text is composed, not fixed at scheduling")
                #expect(try await composer.runOnce() == 1)
                #expect(try await composer.runOnce() == 0)
                // The first of three reminders: 24 oz left, 8 oz each.
                #expect(
                    try await inbox().map(\.body) == ["Time for a glass: 8 oz now keeps you on track for 32 oz"])
                #expect(try await inbox().first?.title == "Time for some water")

                // A bottle and a glass by 13:00 EST: the 14:00 reminder is not sent.
                for (category, at) in [("bottle", "2026-11-01T12:00:00-05:00"), ("glass", "2026-11-01T13:00:00-05:00")]
                {
                    _ = try await db.call(
                        Hydration.LogDrink.self, .init(uuid: UUID().uuidString, category: category, drankAt: at),
                        as: user)
                }
                notifyClock.set(try Self.date("2026-11-01T19:00:01Z"))
                #expect(try await schedules.fireDue().count == 1)
                #expect(try await composer.runOnce() == 1)
                #expect(try await inbox().count == 1, "no reminder once the goal is met")

                notifyClock.set(try Self.date("2026-11-01T22:00:01Z"))
                #expect(try await schedules.fireDue().count == 1)
                #expect(try await composer.runOnce() == 1)
                #expect(try await inbox().count == 1, "nor at 17:00")

                // The next day starts from nothing again.
                notifyClock.set(try Self.date("2026-11-02T16:00:01Z"))
                #expect(try await schedules.fireDue().count == 1)
                #expect(try await composer.runOnce() == 1)
                let bodies = try await inbox().map(\.body)
                // 32 oz over three reminders is 10.67 oz each: rounded up to whole drinks, 12.
                #expect(
                    bodies.first == "Time for a glass and a drink: 12 oz now keeps you on track for 32 oz", "\(bodies)")
                #expect(bodies.count == 2)
            }

            // An account deletion that hydration handled before notify dropped the schedule: the
            // next occurrence finds no plan, sends nothing and drops the schedule itself.
            try await db.forget(user)
            try await Self.withBus(db) { bus in
                let composer = Composer(
                    store: store, texts: .overBus(bus), wake: wake, logger: HydrationDatabase.logger
                ) {}
                notifyClock.set(try Self.date("2026-11-02T19:00:01Z"))
                #expect(try await schedules.fireDue().count == 1)
                #expect(try await composer.runOnce() == 1)
                #expect(try await store.inbox(of: user, .init()).items.count == 2, "nothing more was sent")
            }
            #expect(try await schedules.list(of: user).isEmpty, "the orphaned schedule is gone")
            try await db.client.withConnection { try await schedules.applyPlan(event, on: $0) }
            #expect(try await schedules.list(of: user).count == 1)

            // A plan without reminders removes the schedule at once.
            _ = try await db.call(
                Hydration.SetPlan.self,
                .init(
                    dailyGoal: 32, unit: .oz, remindersPerDay: 0, wake: "08:00", sleep: "20:00",
                    timeZone: "America/New_York"),
                as: user)
            let cleared = try #require(try await db.planEvents(of: user).last)
            try await db.client.withConnection { try await schedules.applyPlan(cleared, on: $0) }
            #expect(try await schedules.list(of: user).isEmpty)
            try await db.client.query("DROP SCHEMA \(unescaped: schema) CASCADE", logger: HydrationDatabase.logger)
        }
    }
}
