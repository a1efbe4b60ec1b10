import ZeroMQ

/// What a run of ``ZMTPFuzzer`` cases found: how many streams, how they ended, and any case that
/// broke a rule (which should be none).
public struct ZMTPFuzzTally: Sendable {
    /// Cases run.
    public var cases = 0
    /// Bytes decoded, over all cases (each case is decoded twice: whole and cut).
    public var bytes = 0
    /// Cases that ended without an error (whole, or waiting for more bytes).
    public var accepted = 0
    /// Cases that ended with an error, by its code.
    public var errors: [ZMTPProtocolError.Code: Int] = [:]
    /// Cases that broke a rule (a different transcript when cut, a valid stream refused, more
    /// held than a unit can need); see ``failures``.
    public var failureCount = 0
    /// The first few such cases, described, with the case number that replays them.
    public var failures: [String] = []
    /// The most bytes one decoder held between two pieces of its stream.
    public var peakBufferedByteCount = 0
    /// The longest one case took (making it and both decodings), in wall time.
    public var slowestCase = Duration.zero
    /// Which case that was (replay it with `loadgen zmtp-fuzz --case`).
    public var slowestCaseIndex = 0

    /// An empty tally.
    public init() {}

    /// Adds `other`'s counts to this one.
    public mutating func merge(_ other: ZMTPFuzzTally) {
        cases += other.cases
        bytes += other.bytes
        accepted += other.accepted
        errors.merge(other.errors, uniquingKeysWith: +)
        failureCount += other.failureCount
        failures += other.failures.prefix(max(0, 10 - failures.count))
        peakBufferedByteCount = max(peakBufferedByteCount, other.peakBufferedByteCount)
        if other.slowestCase > slowestCase {
            slowestCase = other.slowestCase
            slowestCaseIndex = other.slowestCaseIndex
        }
    }

    mutating func fail(_ description: String) {
        failureCount += 1
        if failures.count < 10 { failures.append(description) }
    }

    /// The errors, most frequent first: `code count` per line.
    public var errorLines: [String] {
        errors.sorted { ($0.value, $1.key.description) > ($1.value, $0.key.description) }.map {
            "\($0.key) \($0.value)"
        }
    }
}
