import Logging
import Synchronization
import Testing

@testable import ServiceKit

/// The event consumer's stall detection, with instants given by hand.
@Suite("event consumer: stall watch")
struct StallWatchTests {
    @Test("a catch-up without progress for the limit is stalled; progress and the end of the round reset it")
    func stalls() {
        let watch = StallWatch()
        let start = ContinuousClock.now
        #expect(watch.stalled(now: start + .seconds(600), after: .seconds(120)) == nil, "no round, no stall")
        watch.begin(now: start)
        #expect(watch.stalled(now: start + .seconds(119), after: .seconds(120)) == nil)
        #expect(watch.stalled(now: start + .seconds(120), after: .seconds(120))?.quiet == .seconds(120))
        #expect(watch.stalled(now: start + .seconds(120), after: .seconds(120))?.doing == "reading the event log")
        watch.handling("handling event 1 (orders.paid)")
        watch.progress(now: start + .seconds(100))
        #expect(watch.stalled(now: start + .seconds(200), after: .seconds(120)) == nil, "an event was handled at 100 s")
        watch.handling("handling event 2 (orders.paid)")
        let stall = watch.stalled(now: start + .seconds(221), after: .seconds(120))
        #expect(stall?.quiet == .seconds(121) && stall?.doing == "handling event 2 (orders.paid)")
        watch.end()
        #expect(watch.stalled(now: start + .seconds(999), after: .seconds(120)) == nil)
        watch.progress(now: start + .seconds(1000))
        #expect(
            watch.stalled(now: start + .seconds(9999), after: .seconds(120)) == nil,
            "progress outside a round starts none")
    }
}

/// The job loop's stall watch, wired: a round that never answers is reported (in a service, the
/// report ends the process for its supervisor to restart).
@Suite("job loop: a stuck round")
struct JobLoopStallTests {
    @Test("a round that never returns is reported once it has run past the limit")
    func stuckRound() async throws {
        let (quiet, rounds) = try await Bounded.within(.seconds(60), "the report of a stuck round") {
            try await Self.runStuckLoop()
        }
        #expect(quiet >= .milliseconds(200))
        #expect(rounds == 1)
    }

    /// Runs a loop whose round never returns until it is reported; how long it was quiet then,
    /// and how many rounds began.
    static func runStuckLoop() async throws -> (Duration, Int) {
        let (reports, report) = AsyncStream.makeStream(of: Duration.self)
        let (wake, _) = AsyncStream.makeStream(of: Void.self)
        let loop = JobLoop(
            wake: wake, pollInterval: .seconds(3600), logger: Logger(label: "job-loop-test"),
            failure: "test round failed", stallTimeout: .milliseconds(200), onStall: { report.yield($0) })
        let rounds = Mutex(0)
        let running = Task {
            await loop.run {
                rounds.withLock { $0 += 1 }
                // Waits as a query written into a closed connection does: until cancelled.
                try await Task.sleep(for: .seconds(3600))
                return false
            }
        }
        var iterator = reports.makeAsyncIterator()
        let quiet = await iterator.next()
        running.cancel()
        await running.value
        return (quiet ?? .zero, rounds.withLock { $0 })
    }
}
