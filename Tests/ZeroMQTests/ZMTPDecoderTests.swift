import Testing
import ZMTPFuzz
import ZeroMQ

/// The ZMTP decoder alone, bytes in and events out: every valid unit, cut at every byte, gives the
/// same events; every way of breaking the protocol gives its own error, found as early as it can
/// be and wherever the stream is cut.
@Suite("ZMTP decoder")
struct ZMTPDecoderTests {
    /// The sessions whose every byte boundary is tried: between them they hold every unit a ROUTER
    /// hears from a valid peer.
    static let sessions: [(name: String, session: ZMTPSession)] = {
        var dealer = ZMTPSession()
        dealer.greeting()
        dealer.ready([
            ("Socket-Type", Array("DEALER".utf8)), ("Identity", Array("worker-a".utf8)),
            ("Resource", Array("/mdp".utf8)), ("X-Empty", []),
        ])
        dealer.message([Array("hello".utf8)])
        dealer.message([[], [0], [UInt8](repeating: 0xAB, count: 255), [UInt8](repeating: 0xCD, count: 256)])
        dealer.message([[UInt8](repeating: 0xEF, count: 1000)])
        dealer.message([Array("long header, short frame".utf8), []], longHeaders: true)
        dealer.ping(ttl: 300, context: Array("ctx-1234".utf8))
        dealer.ping(ttl: 0)
        dealer.ping(ttl: 0xFFFF, context: [UInt8](repeating: 7, count: 16))
        dealer.command("PONG", data: Array("ctx".utf8))
        dealer.command("SUBSCRIBE", data: Array("topic".utf8))
        dealer.command("CANCEL")
        dealer.command("hello", data: [1, 2, 3], longHeader: true)
        dealer.message((0..<20).map { [UInt8($0)] })

        var request = ZMTPSession()
        request.greeting(minor: 0, asServer: true, filler: [UInt8](repeating: 0x5A, count: 31))
        request.ready(socketType: "REQ")
        request.message([[], Array("question".utf8)])

        // A READY too long for a short frame: a 255-byte identity and a property after it.
        var router = ZMTPSession()
        router.greeting(major: 4, minor: 7)
        router.ready(
            [("Identity", [UInt8](repeating: 0x42, count: 255)), ("Socket-Type", Array("ROUTER".utf8)), ("A", [9])],
            longHeader: true)
        router.message([[0x42], Array("to a router".utf8)])
        return [("DEALER", dealer), ("REQ", request), ("ROUTER", router)]
    }()

    @Test("every valid unit decodes to the same events however the stream is cut, down to a byte at a time")
    func everyValidUnitCutAtEveryByte() {
        for (name, session) in Self.sessions {
            let bytes = session.bytes
            let whole = ZMTPTranscript(decoding: bytes)
            #expect(whole.records == session.expected, "\(name)")
            #expect(whole.failure == nil && whole.bufferedByteCount == 0 && whole.decodedByteCount == bytes.count)
            for cut in 0...bytes.count {
                let transcript = ZMTPTranscript(decoding: bytes, cuts: [cut])
                #expect(transcript == whole, "\(name) cut at \(cut)")
            }
            #expect(ZMTPTranscript(decoding: bytes, cuts: Array(0..<bytes.count)) == whole, "\(name) byte by byte")
            for first in stride(from: 0, to: bytes.count, by: 7) {
                let transcript = ZMTPTranscript(decoding: bytes, cuts: [first, first + 1, (first + bytes.count) / 2])
                #expect(transcript == whole, "\(name) cut at \(first), \(first + 1) and half way")
            }
        }
    }

    @Test("fed a byte at a time, it holds exactly the bytes after the last whole unit")
    func unfinishedUnitsWait() throws {
        let session = Self.sessions[0].session
        let bytes = session.bytes
        var decoder = ZMTPDecoder()
        var events = 0
        for index in bytes.indices {
            try bytes[index...index].withUnsafeBytes { byte in
                try decoder.decode(byte) { _ in
                    events += 1
                    return true
                }
            }
            #expect(decoder.decodedByteCount + decoder.bufferedByteCount == index + 1)
        }
        #expect(events == session.expected.count && decoder.bufferedByteCount == 0 && decoder.phase == .ready)
    }

    /// A greeting and a READY from a DEALER, as a start for broken streams.
    static func handshake(identity: [UInt8]? = nil) -> ZMTPSession {
        var session = ZMTPSession()
        session.greeting()
        session.ready(socketType: "DEALER", identity: identity)
        return session
    }

    static func greeting(major: UInt8 = 3, mechanism: String = "NULL") -> [UInt8] {
        [0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0x7F, major, 1] + Array(mechanism.utf8)
            + [UInt8](repeating: 0, count: 52 - mechanism.utf8.count)
    }

    static func command(_ name: String, _ data: [UInt8] = [], flags: UInt8 = 0x04) -> [UInt8] {
        let body = [UInt8(name.utf8.count)] + Array(name.utf8) + data
        return [flags, UInt8(body.count)] + body
    }

    static func ready(_ data: [UInt8]) -> [UInt8] { command("READY", data) }

    static func property(_ name: String, _ value: String) -> [UInt8] {
        [UInt8(name.utf8.count)] + Array(name.utf8) + ZMTPSession.bigEndian(UInt64(value.utf8.count), bytes: 4)
            + Array(value.utf8)
    }

    static var afterReady: [UInt8] { handshake().bytes }
    static let greetingSize = 64
    static var readySize: Int { afterReady.count - greetingSize }

    /// Broken streams, the error each must give, where it starts and how few bytes show it.
    static let broken: [(name: String, bytes: [UInt8], code: ZMTPProtocolError.Code, offset: Int, seenAfter: Int)] = [
        ("an HTTP request", Array("GET / HTTP/1.1\r\n\r\n".utf8), .notZMTP, 0, 1),
        ("a ZMTP 1.0 peer", [0x01, 0x00], .notZMTP, 0, 1),
        ("no bit 0 in byte 9", [0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0x7E, 3], .notZMTP, 0, 10),
        ("ZMTP 2", greeting(major: 2), .unsupportedVersion, 0, 64),
        ("CURVE", greeting(mechanism: "CURVE"), .unsupportedMechanism, 0, 64),
        ("NULL with a stray byte", greeting(mechanism: "NULL\u{1}"), .unsupportedMechanism, 0, 64),
        ("reserved flags", greeting() + [0x08, 0], .reservedFlags, 64, 66),
        ("a message before READY", greeting() + [0x00, 1, 0x41], .messageBeforeReady, 64, 66),
        ("MORE on a command", greeting() + command("READY", flags: 0x05), .moreOnCommand, 64, 66),
        ("an empty command", greeting() + [0x04, 0], .malformedCommand, 64, 66),
        ("a name past the command", greeting() + [0x04, 3, 5, 0x52, 0x45], .malformedCommand, 64, 0),
        ("PING before READY", greeting() + command("PING", [0, 1]), .expectedReady, 64, 0),
        ("properties cut short", greeting() + ready(Array("\u{5}broken".utf8)), .malformedMetadata, 64, 0),
        ("a property without a name", greeting() + ready([0, 0, 0, 0, 0]), .malformedMetadata, 64, 0),
        ("a value past the command", greeting() + ready([1, 0x41, 0, 0, 0, 9, 1]), .malformedMetadata, 64, 0),
        ("no Socket-Type", greeting() + ready(property("Identity", "x")), .incompatibleSocketType, 64, 0),
        ("a PUB", greeting() + ready(property("Socket-Type", "PUB")), .incompatibleSocketType, 64, 0),
        ("a 256-byte identity", handshake(identity: [UInt8](repeating: 1, count: 256)).bytes, .identityTooLong, 64, 0),
        ("READY twice", afterReady + ready(property("Socket-Type", "DEALER")), .repeatedReady, 64 + readySize, 0),
        ("PING without its TTL", afterReady + command("PING", [1]), .malformedPing, 64 + readySize, 0),
        (
            "PING with 17 bytes of context", afterReady + command("PING", [UInt8](repeating: 0, count: 19)),
            .malformedPing, 64 + readySize, 0
        ),
        ("ERROR", afterReady + command("ERROR", Array("\u{3}bye".utf8)), .peerError, 64 + readySize, 0),
        (
            "a 1 TiB frame", afterReady + [0x02] + ZMTPSession.bigEndian(1 << 40, bytes: 8), .messageTooLarge,
            64 + readySize, 0
        ),
        (
            "a 2^64-1 byte command", afterReady + [0x06] + [UInt8](repeating: 0xFF, count: 8), .messageTooLarge,
            64 + readySize, 0
        ),
    ]

    @Test("each way of breaking the protocol gives its error, at the unit that broke it, however the stream is cut")
    func brokenStreams() {
        for (name, bytes, code, offset, seenAfter) in Self.broken {
            let whole = ZMTPTranscript(decoding: bytes)
            #expect(whole.failure == ZMTPProtocolError(code, at: offset), "\(name)")
            #expect(whole.bufferedByteCount == 0, "\(name): nothing is kept after an error")
            for cut in 0...bytes.count {
                #expect(ZMTPTranscript(decoding: bytes, cuts: [cut]) == whole, "\(name) cut at \(cut)")
            }
            #expect(ZMTPTranscript(decoding: bytes, cuts: Array(0..<bytes.count)) == whole, "\(name) byte by byte")
            // Found as soon as the bytes that show it are in, before the rest of the unit.
            let shows = seenAfter == 0 ? bytes.count : seenAfter
            #expect(ZMTPTranscript(decoding: Array(bytes.prefix(shows))).failure?.code == code, "\(name)")
            #expect(ZMTPTranscript(decoding: Array(bytes.prefix(shows - 1))).failure == nil, "\(name)")
        }
    }

    @Test("a frame over the size limit is refused from its header; a message of exactly the limit is not")
    func sizeLimit() throws {
        let start = Self.afterReady
        let limit = 1000
        var fits = ZMTPSession()
        fits.message([[UInt8](repeating: 1, count: 600), [UInt8](repeating: 2, count: 400)])
        #expect(ZMTPTranscript(decoding: start + fits.bytes, maxMessageSize: limit).failure == nil)
        // Two frames of 600: the second is refused when its 9-byte header is in, before its body.
        var tooBig = ZMTPSession()
        tooBig.message([[UInt8](repeating: 1, count: 600), [UInt8](repeating: 2, count: 600)])
        let secondHeader = start.count + 9 + 600
        let refused = ZMTPTranscript(decoding: start + tooBig.bytes.prefix(9 + 600 + 9), maxMessageSize: limit)
        #expect(refused.failure == ZMTPProtocolError(.messageTooLarge, at: secondHeader))
        #expect(refused.records.last == .frame([UInt8](repeating: 1, count: 600), more: true))
        // The limit counts each message afresh.
        var twoMessages = ZMTPSession()
        twoMessages.message([[UInt8](repeating: 1, count: 600)])
        twoMessages.message([[UInt8](repeating: 2, count: 600)])
        #expect(ZMTPTranscript(decoding: start + twoMessages.bytes, maxMessageSize: limit).failure == nil)
        // While a frame of the limit arrives, the decoder holds it and its header, no more.
        var peak = 0
        var oneFrame = ZMTPSession()
        oneFrame.message([[UInt8](repeating: 3, count: limit)])
        let input = start + oneFrame.bytes
        let cuts = Array(stride(from: start.count, to: input.count, by: 100))
        let transcript = ZMTPTranscript(decoding: input, cuts: cuts, maxMessageSize: limit, peak: &peak)
        #expect(transcript.failure == nil && transcript.records.count == 3)
        #expect(peak > limit / 2 && peak <= limit + 9)
    }

    @Test("once broken, a stream stays broken: later bytes are not read and the same error comes back")
    func errorsAreFinal() throws {
        var decoder = ZMTPDecoder()
        var events = 0
        let bad = Self.greeting() + [0x08, 0]
        let good = Self.handshake().bytes
        #expect(throws: ZMTPProtocolError(.reservedFlags, at: 64)) {
            try bad.withUnsafeBytes { bytes in
                try decoder.decode(bytes) { _ in
                    events += 1
                    return true
                }
            }
        }
        #expect(decoder.phase == .failed && decoder.failure?.code == .reservedFlags)
        #expect(throws: ZMTPProtocolError(.reservedFlags, at: 64)) {
            try good.withUnsafeBytes { bytes in
                try decoder.decode(bytes) { _ in
                    events += 1
                    return true
                }
            }
        }
        #expect(events == 1, "only the greeting before the error")
    }

    @Test("the owner may refuse a READY (an identity in use): the stream ends there and no frame after it is handed on")
    func ownerRefuses() throws {
        var session = Self.handshake(identity: Array("taken".utf8))
        session.message([Array("never delivered".utf8)])
        var decoder = ZMTPDecoder()
        var seen: [ZMTPRecord] = []
        #expect(throws: ZMTPProtocolError(.refused, at: 64)) {
            try session.bytes.withUnsafeBytes { bytes in
                try decoder.decode(bytes) { event in
                    seen.append(ZMTPRecord(event))
                    if case .ready(let properties) = event { return properties["Identity"] != Array("taken".utf8) }
                    return true
                }
            }
        }
        #expect(seen == Array(session.expected.prefix(2)))
    }

    @Test("ZMTPFrameWriter writes frames of every size class as the protocol has them, and the decoder reads them back")
    func frameWriter() {
        let messages: [[[UInt8]]] = [
            [[]], [[1]], [[], Array("MDPW01".utf8), [3]],
            [[UInt8](repeating: 0xAB, count: 255), [UInt8](repeating: 0xCD, count: 256)],
            [[UInt8](repeating: 0xEF, count: 1 << 20), []],
        ]
        for frames in messages {
            var session = ZMTPSession()
            session.message(frames)
            let size = frames.reduce(0) { $0 + ZMTPWire.headerSize($1.count) + $1.count }
            var written = [UInt8](repeating: 0, count: size + 3)
            let count = written.withUnsafeMutableBytes { memory in
                var out = ZMTPFrameWriter(memory)
                for (index, frame) in frames.enumerated() {
                    if frame.isEmpty {
                        out.emptyFrame(more: index < frames.count - 1)
                    } else {
                        out.frame(frame, more: index < frames.count - 1)
                    }
                }
                return out.count
            }
            #expect(count == size, "the sizes ZMTPWire.headerSize gives are the sizes written")
            #expect(Array(written.prefix(count)) == session.bytes, "frames of \(frames.map(\.count)) bytes")
            #expect(written.suffix(3) == [0, 0, 0], "nothing written past its frames")
            var greeted = ZMTPSession()
            greeted.greeting()
            greeted.ready()
            let transcript = ZMTPTranscript(decoding: greeted.bytes + written.prefix(count))
            #expect(transcript.records == greeted.expected + session.expected)
        }
    }
}
