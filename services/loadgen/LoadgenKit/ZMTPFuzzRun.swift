import Foundation
import ZMTPFuzz
import ZeroMQ

/// `loadgen zmtp-fuzz`: many seeded random and mutated streams through the broker's ZMTP decoder
/// (``ZMTPFuzzer``), on every core, with the speed, how the streams ended, any broken rule, and the
/// process's resident memory before, during and after.
struct ZMTPFuzzRun {
    /// Cases to run.
    var cases = 1_000_000
    /// The seed every case derives from.
    var seed: UInt64 = 20
    /// Threads that run cases at once.
    var threads = ProcessInfo.processInfo.activeProcessorCount
    /// The decoders' message size limit.
    var maxMessageSize = 512

    /// What a run found.
    struct Outcome {
        var tally: ZMTPFuzzTally
        var seconds: Double
        var rssBefore: Int
        var rssWarm: Int
        var rssAfter: Int
        var rssPeak: Int
    }

    /// Runs the cases: a tenth first, to let the allocator settle before the middle measurement,
    /// then the rest.
    func run() async -> Outcome {
        let fuzzer = ZMTPFuzzer(seed: seed, maxMessageSize: maxMessageSize)
        let rssBefore = Self.memory("VmRSS")
        let started = ContinuousClock.now
        let warm = cases / 10
        var tally = await fuzzer.run(0..<warm, threads: threads)
        let rssWarm = Self.memory("VmRSS")
        tally.merge(await fuzzer.run(warm..<cases, threads: threads))
        let seconds = Double((ContinuousClock.now - started).nanoseconds) / 1e9
        return Outcome(
            tally: tally, seconds: seconds, rssBefore: rssBefore, rssWarm: rssWarm, rssAfter: Self.memory("VmRSS"),
            rssPeak: Self.memory("VmHWM"))
    }

    /// The report for people.
    func report(_ outcome: Outcome) -> String {
        let tally = outcome.tally
        let rate = Double(tally.cases) / max(outcome.seconds, 1e-9)
        var lines = [
            "zmtp-fuzz: seed \(seed), \(tally.cases) cases, \(threads) threads, message limit \(maxMessageSize) bytes",
            String(
                format: "%d cases in %.1f s: %.0f cases/s (each decoded whole and cut; %.1f MB decoded)",
                tally.cases, outcome.seconds, rate, Double(tally.bytes) / 1e6),
            "accepted (no error): \(tally.accepted)",
            "errors by kind:",
        ]
        lines += tally.errorLines.map { "  \($0)" }
        lines.append("rules broken: \(tally.failureCount)")
        lines += tally.failures.map { "  \($0)" }
        lines.append("most bytes one decoder held: \(tally.peakBufferedByteCount)")
        lines.append(
            String(
                format: "slowest case: %.3f ms (case %d)", Double(tally.slowestCase.nanoseconds) / 1e6,
                tally.slowestCaseIndex))
        lines.append(
            String(
                format: "RSS: before %.1f MiB, after the first tenth %.1f MiB, after %.1f MiB; peak (VmHWM) %.1f MiB",
                Self.mebibytes(outcome.rssBefore), Self.mebibytes(outcome.rssWarm), Self.mebibytes(outcome.rssAfter),
                Self.mebibytes(outcome.rssPeak)))
        return lines.joined(separator: "\n")
    }

    /// One case, spelled out: its kind, its bytes in hex, and what the decoder made of them.
    func replay(_ index: Int) -> String {
        let fuzzer = ZMTPFuzzer(seed: seed, maxMessageSize: maxMessageSize)
        let (kind, bytes, _) = fuzzer.input(index)
        let transcript = ZMTPTranscript(decoding: bytes, maxMessageSize: maxMessageSize)
        var tally = ZMTPFuzzTally()
        fuzzer.check(index, into: &tally)
        var lines = [
            "seed \(seed) case \(index): \(kind), \(bytes.count) bytes",
            bytes.map { String(format: "%02x", $0) }.joined(separator: " "),
        ]
        lines += transcript.records.map { "  \($0)" }
        lines.append(transcript.failure.map { "  \($0)" } ?? "  no error; \(transcript.bufferedByteCount) bytes held")
        lines.append(String(format: "checked in %.3f ms", Double(tally.slowestCase.nanoseconds) / 1e6))
        lines.append("rules broken: \(tally.failureCount)")
        lines += tally.failures.map { "  \($0)" }
        return lines.joined(separator: "\n")
    }

    /// A `/proc/self/status` figure in bytes (0 where there is none).
    static func memory(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return kilobytes * 1024
    }

    static func mebibytes(_ bytes: Int) -> Double { Double(bytes) / 1_048_576 }
}
