import Foundation
import NotifyService
import Store

/// Scheduler lateness: `reminders` one-off reminders spread evenly over a day, the day
/// compressed `compression` times (1,440: a day in a minute), fired by `replicas` scheduler
/// loops polling every `pollMs`. Lateness is measured in compressed (real) time, from an
/// occurrence's due time to the commit of its notification.
struct SchedulerBench {
    var reminders = 100_000
    var compression = 1440.0
    var replicas = 1
    var pollMs = 100
    var batch = 500

    func run() async throws {
        let clock = ManualClock()
        let start = clock.now()
        try await BenchWorld.with(clock: clock) { world in
            try await world.database.addDailyReminders(reminders, from: start)
            let began = ContinuousClock.now
            let driver = Task {
                while !Task.isCancelled {
                    clock.set(start.addingTimeInterval(seconds(since: began) * compression))
                    try? await Task.sleep(for: .milliseconds(2))
                }
            }
            defer { driver.cancel() }
            let limit = Duration.seconds(86_400 / compression + 60)
            let lateness = try await withThrowingTaskGroup(of: [Double].self) { group in
                for _ in 0..<replicas {
                    group.addTask {
                        var late: [Double] = []
                        while ContinuousClock.now - began < limit {
                            // A round that starts after the day's last due time and finds less
                            // than a batch has fired everything.
                            let dayOver = clock.now() > start.addingTimeInterval(86_400)
                            let due = try await world.schedules.fireDue(limit: batch)
                            let now = clock.now()
                            late += due.map { now.timeIntervalSince($0) / compression }
                            if due.count < batch {
                                if dayOver { break }
                                try await Task.sleep(for: .milliseconds(pollMs))
                            }
                        }
                        return late
                    }
                }
                var all: [Double] = []
                for try await part in group { all += part }
                return all.sorted()
            }
            let fired = try await world.database.notifications()
            func percentile(_ p: Double) -> Int {
                lateness.isEmpty ? -1 : Int(lateness[min(lateness.count - 1, Int(Double(lateness.count) * p))] * 1000)
            }
            print(
                "notify-bench scheduler: \(lateness.count) of \(reminders) reminders fired over a day compressed "
                    + "\(Int(compression))x (\(Int(Double(reminders) / (86_400 / compression))) due/s); lateness "
                    + "p50 \(percentile(0.5)) ms, p99 \(percentile(0.99)) ms, max \(percentile(1)) ms; "
                    + "\(fired) notifications (\(replicas) replicas, poll \(pollMs) ms, batch \(batch), \(buildKind))")
        }
    }
}
