import ServiceKit
import ZeroMQ

/// Seeded fuzzing of ``ZMTPDecoder``: case `n` of seed `s` is always the same stream, so any
/// finding replays with its two numbers.
///
/// A case is one of: a valid session, whole; a valid session with 1 to 4 edits
/// (``ZMTPMutator``); random bytes after a valid greeting, or after a greeting and READY; random
/// bytes with a plausible signature; or frames with random flags and sizes after a handshake.
/// Each is decoded whole and again cut at random places (now and then at every byte), and these
/// rules are checked:
/// - both transcripts are the same (events, error and where it stopped);
/// - a stream without an error is decoded up to its last whole unit, and what is held back is
///   less than a greeting or one frame of at most ``maxMessageSize`` with its header;
/// - a valid session gives exactly its events and no error.
/// Running it at all checks the rest: no crash (the decoder reads through bounds-checked spans,
/// which would trap), no hang (each decoding ends; the slowest case is timed).
public struct ZMTPFuzzer: Sendable {
    /// The seed every case derives from.
    public let seed: UInt64
    /// The decoders' limit (small, so sizes near it are cheap to reach).
    public let maxMessageSize: Int

    /// The kinds of case, for ``input(_:)``.
    public enum Kind: String, Sendable, CaseIterable {
        case valid, mutated, randomAfterGreeting, randomAfterReady, randomBytes, randomFrames, commands
    }

    /// A fuzzer whose cases derive from `seed`.
    public init(seed: UInt64, maxMessageSize: Int = 512) {
        self.seed = seed
        self.maxMessageSize = maxMessageSize
    }

    /// Case `index`'s generator: a SplitMix stream that starts at a hash of seed and index.
    func random(_ index: Int) -> SeededRandom {
        var mixer = SeededRandom(seed: seed &+ UInt64(truncatingIfNeeded: index))
        return SeededRandom(seed: mixer.next())
    }

    /// Case `index`: its kind, its bytes, and for a valid session the events it must give.
    public func input(_ index: Int) -> (kind: Kind, bytes: [UInt8], expected: [ZMTPRecord]?) {
        var random = random(index)
        let kind = Self.kind(random.below(100))
        switch kind {
        case .valid:
            let session = ZMTPSession.random(units: 4, maxMessageSize: maxMessageSize, using: &random)
            return (kind, session.bytes, session.expected)
        case .mutated:
            let session = ZMTPSession.random(units: 3, maxMessageSize: maxMessageSize, using: &random)
            let other =
                random.oneIn(4)
                ? ZMTPSession.random(units: 2, maxMessageSize: maxMessageSize, using: &random).bytes : []
            let bytes = ZMTPMutator.mutate(
                session.bytes, maxMessageSize: maxMessageSize, splice: other, using: &random)
            return (kind, bytes, nil)
        case .randomAfterGreeting, .randomAfterReady:
            var session = ZMTPSession()
            session.greeting()
            if kind == .randomAfterReady { session.ready(socketType: "DEALER") }
            session.append(raw: random.bytes(random.int(1...48)))
            return (kind, session.bytes, nil)
        case .randomBytes:
            var bytes = random.bytes(random.int(0...80))
            if !bytes.isEmpty, random.coin() { bytes[0] = 0xFF }
            if bytes.count > 9, random.coin() { bytes[9] |= 1 }
            return (kind, bytes, nil)
        case .randomFrames:
            var session = ZMTPSession()
            session.greeting()
            session.ready(socketType: "ROUTER", identity: random.coin() ? nil : [1, 2, 3])
            for _ in 0..<random.int(1...6) {
                let flags = random.pick(ZMTPMutator.interestingBytes) & (random.coin() ? 0x07 : 0xFF)
                let size = random.int(0...40)
                let header: [UInt8] =
                    flags & 0x02 != 0
                    ? [flags] + ZMTPSession.bigEndian(UInt64(size), bytes: 8) : [flags, UInt8(size)]
                session.append(raw: header + random.bytes(random.int(0...size)))
            }
            return (kind, session.bytes, nil)
        case .commands:
            var session = ZMTPSession()
            session.greeting()
            var properties = [(name: "Identity", value: random.bytes(random.int(250...260)))]
            if !random.oneIn(8) {
                let type = random.pick(["DEALER", "REQ", "ROUTER", "PUB", "SUB", "PAIR", ""])
                properties.insert((name: "Socket-Type", value: Array(type.utf8)), at: random.int(0...1))
            }
            session.ready(properties)
            for _ in 0..<random.int(1...4) {
                let name = random.pick(["PING", "PING", "PONG", "ERROR", "READY", "SUBSCRIBE", ""])
                session.append(raw: Self.command(name, data: random.bytes(random.int(0...24))))
            }
            return (kind, session.bytes, nil)
        }
    }

    /// A command frame with any name, even one a ROUTER acts on.
    private static func command(_ name: String, data: [UInt8]) -> [UInt8] {
        let body = [UInt8(name.utf8.count)] + Array(name.utf8) + data
        return [0x04, UInt8(body.count)] + body
    }

    private static func kind(_ roll: Int) -> Kind {
        switch roll {
        case 0..<10: .valid
        case 10..<55: .mutated
        case 55..<62: .randomAfterGreeting
        case 62..<69: .randomAfterReady
        case 69..<79: .randomBytes
        case 79..<90: .randomFrames
        default: .commands
        }
    }

    /// Runs cases `range` and adds what they found to `tally`.
    public func run(_ range: Range<Int>, into tally: inout ZMTPFuzzTally) {
        for index in range { check(index, into: &tally) }
    }

    /// Runs case `index` and adds what it found to `tally`.
    public func check(_ index: Int, into tally: inout ZMTPFuzzTally) {
        let started = ContinuousClock.now
        let (kind, bytes, expected) = input(index)
        var random = random(index ^ Int.min)
        var cuts: [Int]
        if bytes.count <= 160, random.oneIn(16) {
            cuts = Array(0..<bytes.count)
        } else {
            cuts = (0..<random.int(1...3)).map { _ in random.int(0...bytes.count) }
            cuts.sort()
        }
        var peak = 0
        let whole = ZMTPTranscript(decoding: bytes, maxMessageSize: maxMessageSize, peak: &peak)
        let cut = ZMTPTranscript(decoding: bytes, cuts: cuts, maxMessageSize: maxMessageSize, peak: &peak)
        tally.cases += 1
        tally.bytes += 2 * bytes.count
        tally.peakBufferedByteCount = max(tally.peakBufferedByteCount, peak)
        if let failure = whole.failure {
            tally.errors[failure.code, default: 0] += 1
        } else {
            tally.accepted += 1
        }
        let replay = "seed \(seed) case \(index) (\(kind), \(bytes.count) bytes)"
        if whole != cut {
            tally.fail("\(replay): cut at \(cuts) it gives \(Self.summary(cut)), whole \(Self.summary(whole))")
        }
        if whole.failure == nil, whole.decodedByteCount + whole.bufferedByteCount != bytes.count {
            tally.fail("\(replay): \(whole.decodedByteCount) decoded + \(whole.bufferedByteCount) held")
        }
        if peak > max(63, 9 + maxMessageSize) {
            tally.fail("\(replay): held \(peak) bytes")
        }
        if let expected, whole.records != expected || whole.failure != nil || whole.bufferedByteCount != 0 {
            tally.fail("\(replay): a valid session gave \(Self.summary(whole))")
        }
        let took = ContinuousClock.now - started
        if took > tally.slowestCase {
            tally.slowestCase = took
            tally.slowestCaseIndex = index
        }
    }

    private static func summary(_ transcript: ZMTPTranscript) -> String {
        let ending = transcript.failure.map { "\($0)" } ?? "no error, \(transcript.bufferedByteCount) bytes held"
        return "\(transcript.records.count) events, \(ending)"
    }
}
