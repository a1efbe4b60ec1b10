import Synchronization
import TestSupport
import Testing

@testable import LoadgenKit

@Suite("loadgen broker: rounds and options")
struct BrokerRoundsTests {
    func result(_ name: String, rate: Int, p50: UInt64 = 100) -> RunResult {
        RunResult(name: name, count: rate, seconds: 1, p50: p50, p99: p50 * 2, max: p50 * 3)
    }

    @Test("each share is taken within its round, and the median of the rounds is reported")
    func sharesWithinRounds() {
        let raw = "raw DEALER-ROUTER (no broker), 100 in flight"
        let broker = "broker, 4 workers, 100 in flight"
        // The raw rate swings between rounds; the broker's share of it does not.
        let rounds = [
            [result(raw, rate: 300_000), result(broker, rate: 90_000)],
            [result(raw, rate: 400_000), result(broker, rate: 120_000)],
            [result(raw, rate: 200_000), result(broker, rate: 80_000)],
        ]
        let text = Report.rounds(rounds, payloadBytes: 64)
        #expect(text.contains("median of 3 rounds"))
        #expect(text.contains("\(broker): 30% of the raw rate (rounds: 30%, 30%, 40%)"))
        let brokerLine = text.split(separator: "\n").first { $0.hasPrefix(broker) && $0.contains("-") }
        #expect(brokerLine?.contains("90000") == true)
        #expect(brokerLine?.contains("80000-120000") == true)
        #expect(Report.median([4, 1, 3, 2]) == 2.5)
        #expect(Report.median([]) == 0)
    }

    @Test("rounds of real runs: the raw case starts every round even when --only leaves it out")
    func realRounds() async throws {
        try TestLayers.requireQuietMachine()
        // Long enough that every case completes round trips in its window even on a loaded machine.
        let bench = BrokerBench(seconds: 1)
        let labels = Labels()
        let rounds = try await bench.run(only: "raw-1", rounds: 2) { labels.append($0) }
        #expect(rounds.count == 2)
        for round in rounds {
            // "raw-1" matches raw-1 and raw-100 (and the MDP-frames raw case) by name.
            #expect(round.contains { $0.name.hasSuffix(", 1 in flight") })
            #expect(round.contains(where: Report.isRaw100))
            #expect(round.allSatisfy { $0.count > 0 }, "\(round.map { "\($0.name): \($0.count)" })")
        }
        // Through the broker with the async client: the one case whose label has "async".
        let onlyBroker = try await bench.run(only: "async", rounds: 2) { labels.append($0) }
        #expect(onlyBroker.map { $0.count } == [2, 2])
        #expect(onlyBroker.allSatisfy { $0.first.map(Report.isRaw100) == true && $0[1].count > 0 })
        #expect(labels.all.contains("async-4w-100 (round 2 of 2)"))
    }

    @Test("cases through the broker report its thread's CPU time per round trip; the rules run alone too")
    func hubCPUTime() async throws {
        let bench = BrokerBench(seconds: 0.2)
        var results: [RunResult] = []
        for only in ["raw-100", "broker-4w-100", "broker-io-4w-100", "core-rules-4w"] {
            results += try await bench.run(only: only) { _ in }.flatMap { $0 }
        }
        #expect(results.count == 4)
        #expect(results[0].hubCPUMicros == nil, "no hub between the raw peers")
        for result in results.dropFirst() {
            #expect(result.count > 0)
            let micros = try #require(result.hubCPUMicros, "\(result.name)")
            #expect(micros > 0 && micros < 10_000)
        }
        let rules = try #require(results.last)
        #expect(rules.name.hasPrefix("broker rules alone"))
        let text = Report.table(results, payloadBytes: 64)
        #expect(text.contains("hub CPU µs/trip"))
        let rulesLine = try #require(text.split(separator: "\n").first { $0.hasPrefix("broker rules alone") })
        #expect(rulesLine.split(separator: " ").filter { $0 == "-" }.count == 3, "it times no round trips")
        #expect(!text.contains("broker rules alone (BrokerCore in memory, no sockets), 4 workers (credit 32): "))
        let json = String(decoding: try Report.json(results), as: UTF8.self)
        #expect(json.contains("hubCPUMicrosPerTrip"))
    }

    @Test("unknown options and bad numbers are usage errors (exit 64) with a message")
    func options() async throws {
        #expect(await Loadgen.main(["broker", "--seconds", "soon"]) == 64)
        #expect(await Loadgen.main(["broker", "--rounds", "0"]) == 64)
        #expect(await Loadgen.main(["broker", "--transport", "udp"]) == 64)
        #expect(await Loadgen.main(["broker", "--frobnicate", "1"]) == 64)
        #expect(await Loadgen.main(["orders", "--rate", "-5"]) == 64)
        #expect(await Loadgen.main(["login", "--clients", "1,x"]) == 64)
        #expect(await Loadgen.main(["get", "--connections", "4", "--rate", "10"]) == 64)
        #expect(await Loadgen.main(["no-such-scenario"]) == 64)
        #expect(await Loadgen.main(["--help"]) == 0)
        let error = #expect(throws: (any Error).self) { try BrokerCommand.parse(["--seconds", "0"]) }
        #expect(BrokerCommand.message(for: try #require(error)) == "--seconds wants a number more than 0, not '0.0'")
        #expect(throws: (any Error).self) { try BrokerCommand.parse(["--slot", "3"]) }
        let given = try BrokerCommand.parse(["--slots", "100"])
        #expect(given.slots == 100 && given.seconds == 3)
    }
}

/// Progress labels collected from the bench's callback.
final class Labels: Sendable {
    private let state = Mutex<[String]>([])
    func append(_ label: String) { state.withLock { $0.append(label) } }
    var all: [String] { state.withLock { $0 } }
}
