/// ZMTP 3.1 (RFC 37, NULL mechanism) as a ROUTER hears it: one connection's bytes in, in pieces
/// of any size, events and errors out. No sockets, no clock, no allocation per frame.
///
/// The first violation ends the stream. An oversized frame is refused from its header, so a peer
/// never makes it hold more than ``maxMessageSize``. Input is read through bounds-checked spans only.
public struct ZMTPDecoder: Sendable {
    /// Where the stream is: awaiting the greeting, awaiting READY, exchanging messages, or failed.
    public enum Phase: Sendable, Equatable {
        case greeting
        case handshake
        case ready
        case failed
    }

    /// The largest message (all its frames together) a peer may send.
    public let maxMessageSize: Int
    public private(set) var phase = Phase.greeting
    /// The error that ended the stream, once it has.
    public private(set) var failure: ZMTPProtocolError?
    /// The stream offset of the first byte still buffered.
    public private(set) var decodedByteCount = 0
    /// Bytes received that do not yet make a whole unit.
    private var buffered: [UInt8] = []
    /// Body bytes of the message under way so far.
    private var messageByteCount = 0

    private static let flagMore: UInt8 = 0x01
    private static let flagLong: UInt8 = 0x02
    private static let flagCommand: UInt8 = 0x04
    private static let greetingSize = 64
    private static let nullMechanism: [UInt8] = Array("NULL".utf8) + [UInt8](repeating: 0, count: 16)
    private static let compatiblePeers: Set<[UInt8]> = [
        Array("DEALER".utf8), Array("REQ".utf8), Array("ROUTER".utf8),
    ]

    public init(maxMessageSize: Int = 64 << 20) {
        self.maxMessageSize = maxMessageSize
    }

    public var bufferedByteCount: Int { buffered.count }

    /// Calls `handle` with each whole unit in order; `handle` returns `false` to refuse the peer
    /// (``ZMTPProtocolError/Code/refused``). Throws the first violation, on every call from then on.
    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, _ handle: (ZMTPEvent) -> Bool
    ) throws(ZMTPProtocolError) {
        if let failure { throw failure }
        if buffered.isEmpty {
            let used = parse(bytes, handle)
            if failure == nil, used < bytes.count { buffered.append(contentsOf: bytes[used...]) }
        } else {
            buffered.append(contentsOf: bytes)
            var input: [UInt8] = []
            swap(&input, &buffered)
            let used = input.withUnsafeBytes { parse($0, handle) }
            if failure == nil {
                input.removeFirst(used)
                buffered = input
            }
        }
        if let failure { throw failure }
    }

    /// Returns how many bytes of `raw` whole units took; sets ``failure`` at a violation.
    private mutating func parse(_ raw: UnsafeRawBufferPointer, _ handle: (ZMTPEvent) -> Bool) -> Int {
        let bytes = raw.bindMemory(to: UInt8.self).span
        var offset = 0
        defer { decodedByteCount += offset }
        while phase != .failed {
            let available = bytes.count - offset
            if phase == .greeting {
                // Check the signature early, so a stranger is dropped before 64 bytes arrive.
                if available >= 1, bytes[offset] != 0xFF { return fail(.notZMTP, at: offset) }
                if available >= 10, bytes[offset + 9] & 1 == 0 { return fail(.notZMTP, at: offset) }
                guard available >= Self.greetingSize else { return offset }
                let major = bytes[offset + 10]
                guard major >= 3 else { return fail(.unsupportedVersion, at: offset) }
                let mechanism = bytes.extracting((offset + 12)..<(offset + 32))
                guard Self.equal(mechanism, Self.nullMechanism) else { return fail(.unsupportedMechanism, at: offset) }
                phase = .handshake
                guard handle(.greeting(major: major, minor: bytes[offset + 11])) else {
                    return fail(.refused, at: offset)
                }
                offset += Self.greetingSize
                continue
            }
            guard available >= 2 else { return offset }
            let flags = bytes[offset]
            guard flags & 0xF8 == 0 else { return fail(.reservedFlags, at: offset) }
            let size: Int
            let header: Int
            if flags & Self.flagLong != 0 {
                guard available >= 9 else { return offset }
                var long: UInt64 = 0
                for index in 1...8 { long = long << 8 | UInt64(bytes[offset + index]) }
                guard long <= UInt64(maxMessageSize) else { return fail(.messageTooLarge, at: offset) }
                size = Int(long)
                header = 9
            } else {
                size = Int(bytes[offset + 1])
                header = 2
            }
            let isCommand = flags & Self.flagCommand != 0
            let more = flags & Self.flagMore != 0
            if isCommand {
                guard !more else { return fail(.moreOnCommand, at: offset) }
            } else {
                guard phase == .ready else { return fail(.messageBeforeReady, at: offset) }
                guard size <= maxMessageSize - messageByteCount else { return fail(.messageTooLarge, at: offset) }
            }
            guard available - header >= size else { return offset }
            let start = offset + header
            let body = bytes.extracting(start..<(start + size))
            if isCommand {
                if let code = command(body, handle) { return fail(code, at: offset) }
            } else {
                messageByteCount = more ? messageByteCount + size : 0
                guard body.withUnsafeBytes({ handle(.frame($0, more: more)) }) else {
                    return fail(.refused, at: offset)
                }
            }
            offset = start + size
        }
        return offset
    }

    /// Returns what is wrong with a command, if anything.
    private mutating func command(_ body: Span<UInt8>, _ handle: (ZMTPEvent) -> Bool) -> ZMTPProtocolError.Code? {
        guard body.count >= 1, body.count - 1 >= Int(body[0]) else { return .malformedCommand }
        let nameEnd = 1 + Int(body[0])
        let name = body.extracting(1..<nameEnd)
        let data = body.extracting(nameEnd..<body.count)
        if phase == .handshake {
            guard Self.equal(name, "READY") else { return .expectedReady }
            guard let properties = Self.properties(data) else { return .malformedMetadata }
            guard let type = properties["Socket-Type"], Self.compatiblePeers.contains(type) else {
                return .incompatibleSocketType
            }
            guard (properties["Identity"]?.count ?? 0) <= 255 else { return .identityTooLong }
            phase = .ready
            return handle(.ready(properties: properties)) ? nil : .refused
        }
        if Self.equal(name, "PING") {
            // RFC 37: a 2-byte TTL, then up to 16 bytes of context for PONG.
            guard data.count >= 2, data.count <= 18 else { return .malformedPing }
            let ttl = UInt16(data[0]) << 8 | UInt16(data[1])
            let accepted = data.extracting(2..<data.count).withUnsafeBytes { handle(.ping(ttl: ttl, context: $0)) }
            return accepted ? nil : .refused
        }
        if Self.equal(name, "ERROR") { return .peerError }
        if Self.equal(name, "READY") { return .repeatedReady }
        // PONG, SUBSCRIBE, CANCEL and commands it does not know mean nothing to a ROUTER.
        return name.withUnsafeBytes { handle(.command(name: $0)) } ? nil : .refused
    }

    private mutating func fail(_ code: ZMTPProtocolError.Code, at offset: Int) -> Int {
        failure = ZMTPProtocolError(code, at: decodedByteCount + offset)
        phase = .failed
        buffered = []
        return offset
    }

    /// READY metadata: 1-byte name length, name, 4-byte value length, value; repeated.
    private static func properties(_ data: Span<UInt8>) -> [String: [UInt8]]? {
        var result: [String: [UInt8]] = [:]
        var offset = 0
        while offset < data.count {
            let nameLength = Int(data[offset])
            guard nameLength > 0, data.count - offset >= 1 + nameLength + 4 else { return nil }
            let name = data.extracting((offset + 1)..<(offset + 1 + nameLength)).withUnsafeBytes {
                String(decoding: $0, as: UTF8.self)
            }
            offset += 1 + nameLength
            var valueLength = 0
            for index in 0..<4 { valueLength = valueLength << 8 | Int(data[offset + index]) }
            offset += 4
            guard valueLength <= data.count - offset else { return nil }
            result[name] = data.extracting(offset..<(offset + valueLength)).withUnsafeBytes { Array($0) }
            offset += valueLength
        }
        return result
    }

    private static func equal(_ span: Span<UInt8>, _ bytes: [UInt8]) -> Bool {
        guard span.count == bytes.count else { return false }
        for index in 0..<bytes.count where span[index] != bytes[index] { return false }
        return true
    }

    private static func equal(_ span: Span<UInt8>, _ text: StaticString) -> Bool {
        guard span.count == text.utf8CodeUnitCount else { return false }
        return text.withUTF8Buffer { utf8 in
            for index in 0..<utf8.count where span[index] != utf8[index] { return false }
            return true
        }
    }
}
