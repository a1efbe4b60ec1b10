import Synchronization
import Testing

@testable import LoadgenKit

@Suite("loadgen: open-loop arrivals")
struct ArrivalTests {
    /// Offsets in seconds of the arrivals of `source` before `seconds`.
    func offsets(_ source: some ArrivalSource, until seconds: Double) -> [Double] {
        var source = source
        var offsets: [Double] = []
        while let arrival = source.next() {
            let offset = Double(arrival.offset.nanoseconds) / 1e9
            if offset >= seconds { break }
            offsets.append(offset)
        }
        return offsets
    }

    @Test("a steady source spaces arrivals 1/rate apart")
    func steady() {
        let times = offsets(SteadyArrivals(rate: 50) { _ in { _ in } }, until: 2)
        #expect(times.count == 100)
        #expect(times.first == 0)
        #expect(abs(times[1] - 0.02) < 1e-9)
        #expect(offsets(SteadyArrivals(rate: 0) { _ in { _ in } }, until: 2).isEmpty)
    }

    @Test("periodic users: in time order, each action about users / period per second")
    func periodic() {
        let users = 3000
        let source = PeriodicUsers(
            users: users,
            actions: [
                .init(every: 10) { _, _ in }, .init(every: 60) { _, _ in },
            ])
        let times = offsets(source, until: 120)
        #expect(times == times.sorted())
        // Over 120 s: 3000 users × (12 locates + 2 routes), give or take the jitter and phase.
        let expected = Double(users) * (120.0 / 10 + 120.0 / 60)
        #expect(abs(Double(times.count) - expected) / expected < 0.05, "\(times.count) vs \(expected)")
        // No ten seconds of the steady part are far from the mean rate (users start spread out).
        var perTen = [Int](repeating: 0, count: 12)
        for time in times { perTen[Int(time / 10)] += 1 }
        let mean = 10 * Double(users) * (1.0 / 10 + 1.0 / 60)
        for count in perTen[1..<11] { #expect(abs(Double(count) - mean) / mean < 0.1, "\(perTen)") }
    }

    @Test("merged sources stay in time order and lose nothing")
    func merged() {
        let merged = MergedArrivals([
            SteadyArrivals(rate: 7) { _ in { _ in } }, SteadyArrivals(rate: 13) { _ in { _ in } },
        ])
        let times = offsets(merged, until: 10)
        #expect(times == times.sorted())
        #expect(times.count == 70 + 130)
    }

    @Test("the run records every arrival, latency counted from when it was due")
    func openLoopRun() async {
        let tally = Tally()
        let source = SteadyArrivals(rate: 200) { index in
            { due in
                // Every tenth answer is slow; in an open loop that must not delay the others.
                if index % 10 == 0 { try? await Task.sleep(for: .milliseconds(300)) }
                tally.record(index % 10 == 0 ? "slow" : "fast", status: 200, latency: .now - due, expected: [200])
            }
        }
        let elapsed = await OpenLoop(seconds: 1, inFlight: 1000, progressEvery: 0).run(source, tally: tally)
        let kinds = tally.snapshot
        #expect(kinds["fast"]?.statuses[200] == 180)
        #expect(kinds["slow"]?.statuses[200] == 20)
        #expect(tally.started.load(ordering: .relaxed) == 200)
        #expect(tally.finished.load(ordering: .relaxed) == 200)
        #expect((kinds["slow"]?.recorder.result(name: "", seconds: 1).p50 ?? 0) >= 300_000)
        #expect(elapsed >= 1)
    }

    @Test("at most inFlight arrivals are open at once; one that waited for a slot counts its wait")
    func inFlightCap() async {
        let tally = Tally()
        let open = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        // 100 arrivals due in half a second, each taking 20 ms, two at a time: the last ones
        // start about a second after they were due.
        let source = SteadyArrivals(rate: 200) { _ in
            { due in
                let now = open.add(1, ordering: .relaxed).newValue
                most.max(now, ordering: .relaxed)
                try? await Task.sleep(for: .milliseconds(20))
                open.subtract(1, ordering: .relaxed)
                tally.record("capped", status: 200, latency: .now - due, expected: [200])
            }
        }
        _ = await OpenLoop(seconds: 0.5, inFlight: 2, progressEvery: 0).run(source, tally: tally)
        let kind = tally.snapshot["capped"]
        #expect(kind?.statuses[200] == 100)
        #expect(most.load(ordering: .relaxed) <= 2)
        #expect((kind?.recorder.result(name: "", seconds: 1).max ?? 0) >= 500_000)
    }

    @Test("options: unknown ones and bad numbers are refused with the option's name")
    func options() throws {
        #expect(throws: UsageError.self) { try Loadgen.appSettings("navup", ["treads": "4"]) }
        do {
            _ = try Loadgen.appSettings("gifter", ["login-rate": "fast"])
            Issue.record("accepted --login-rate fast")
        } catch let error as UsageError {
            #expect(error.description.contains("--login-rate"))
        }
        let navup = try Loadgen.appSettings("navup", ["users": "500"])
        #expect(navup.users == 500 && navup.loginRate == 0 && navup.postcardRate == 0)
        let mixed = try Loadgen.appSettings("mixed", [:])
        #expect(mixed.users > 0 && mixed.loginRate > 0 && mixed.postcardRate > 0)
    }
}
