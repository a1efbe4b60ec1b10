import Testing
import ZMTPFuzz
import ZeroMQ

/// A million random and mutated streams through the ZMTP decoder (seeded: a finding replays with
/// `loadgen zmtp-fuzz --seed S --case N`). `loadgen zmtp-fuzz` runs more, in a release build, and
/// measures speed and memory.
@Suite("ZMTP decoder fuzzing")
struct ZMTPFuzzTests {
    static let seed: UInt64 = 20

    @Test(
        "1,000,000 seeded cases: same events however cut, valid sessions whole, nothing held past one unit",
        // A guard against a decoder that loops, not a speed target (`loadgen zmtp-fuzz` measures
        // speed): beside make test's other steps on two cores the run has taken over 3 minutes.
        .timeLimit(.minutes(10)))
    func millionCases() async {
        let fuzzer = ZMTPFuzzer(seed: Self.seed)
        let total = 1_000_000
        // On threads of their own, both cores of a debug build: not on the task pool, where a
        // million cases would starve the tests that run beside them.
        let tally = await fuzzer.run(0..<total, threads: 2)
        #expect(tally.cases == total)
        #expect(tally.failureCount == 0, "\(tally.failures.joined(separator: "\n"))")
        // The cases reach every error the decoder has, and a fair share of streams are accepted.
        let codes: [ZMTPProtocolError.Code] = [
            .notZMTP, .unsupportedVersion, .unsupportedMechanism, .reservedFlags, .moreOnCommand, .malformedCommand,
            .messageBeforeReady, .expectedReady, .malformedMetadata, .incompatibleSocketType, .identityTooLong,
            .repeatedReady, .malformedPing, .peerError, .messageTooLarge,
        ]
        for code in codes {
            #expect(tally.errors[code, default: 0] > 100, "\(code): \(tally.errors[code, default: 0])")
        }
        #expect(tally.accepted > total / 5)
        #expect(tally.accepted + tally.errors.values.reduce(0, +) == total)
        #expect(tally.peakBufferedByteCount <= fuzzer.maxMessageSize + 9)
    }

    @Test("a case is the same stream on every run; other cases and seeds are other streams")
    func casesReplay() {
        let fuzzer = ZMTPFuzzer(seed: Self.seed)
        let first = fuzzer.input(12_345)
        #expect(fuzzer.input(12_345).bytes == first.bytes && fuzzer.input(12_345).kind == first.kind)
        #expect(ZMTPFuzzer(seed: Self.seed).input(12_345).bytes == first.bytes)
        #expect(fuzzer.input(12_346).bytes != first.bytes)
        #expect(ZMTPFuzzer(seed: Self.seed + 1).input(12_345).bytes != first.bytes)
        let kinds = Set((0..<1000).map { fuzzer.input($0).kind })
        #expect(kinds == Set(ZMTPFuzzer.Kind.allCases))
    }

    @Test("valid cases give exactly their events, and one byte short they wait rather than fail")
    func validSessionsAreChecked() {
        let fuzzer = ZMTPFuzzer(seed: Self.seed)
        var valid = 0
        for index in 0..<2000 {
            let (kind, bytes, expected) = fuzzer.input(index)
            guard kind == .valid, let expected else { continue }
            valid += 1
            let transcript = ZMTPTranscript(decoding: bytes, maxMessageSize: fuzzer.maxMessageSize)
            #expect(transcript.records == expected && transcript.failure == nil)
            // A stream one byte short of a valid session is waiting, not broken.
            let short = ZMTPTranscript(decoding: Array(bytes.dropLast()), maxMessageSize: fuzzer.maxMessageSize)
            #expect(short.failure == nil && short.bufferedByteCount > 0)
        }
        #expect(valid > 100)
    }
}
