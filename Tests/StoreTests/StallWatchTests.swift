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
