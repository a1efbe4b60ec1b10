import Contract
import Foundation
import HydrationContract
import HydrationService
import NotifyContract
import NotifyService
import ServiceKit
import Store

/// Reminder lateness with the text composed at fire time: `users` users with a plan (hydration
/// schema, real rows), one reminder each, due times spread over a day compressed `compression`
/// times, fired by notify's scheduler (`fireDue`) and composed by notify's `Composer`, which
/// asks hydration's `reminder_text` through the service's operation table (no broker). Lateness
/// runs from an occurrence's due time to the commit of its notification, in real time.
struct ReminderBench {
    let bench: Bench
    let store: ReminderBenchStore
    var users = 100_000
    var compression = 1_440.0
    var composers = 2

    func run() async throws {
        let logger = SyncBench.logger
        let clock = ManualClock()
        let start = clock.now()
        let schema = try await store.seed(users: users, start: start)
        let (notifications, schedules) = store.notifyStores(schema: schema, clock: clock)
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
        var configured = Composer(store: notifications, texts: texts, wake: wake, logger: logger) {}
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
        let lateness = try await store.lateness(schema: schema, compression: compression)
        try await store.drop(schema: schema)
        print(
            String(
                format:
                    "reminders composed at fire time: %d of %d sent over a day compressed %.0fx (%.0f due/s); lateness p50 %.0f ms, p99 %.0f ms, max %.0f ms (%d composers)",
                lateness.count, users, compression, Double(users) / (86_400 / compression),
                Bench.percentile(lateness, 0.5), Bench.percentile(lateness, 0.99), lateness.last ?? 0, composers))
    }
}
