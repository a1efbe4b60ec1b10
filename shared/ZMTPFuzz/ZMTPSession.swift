import ZeroMQ

/// A valid ZMTP 3.1 stream, as a DEALER, REQ or ROUTER peer sends it to a ROUTER, built unit by
/// unit from RFC 37 (not with the engine's own encoder, so a shared mistake cannot hide), with the
/// events a decoder must make of it.
public struct ZMTPSession: Sendable {
    /// The stream.
    public private(set) var bytes: [UInt8] = []
    /// The events a ``ZMTPDecoder`` must hand on for it, in order.
    public private(set) var expected: [ZMTPRecord] = []

    private static let more: UInt8 = 0x01
    private static let long: UInt8 = 0x02
    private static let command: UInt8 = 0x04

    /// An empty stream.
    public init() {}

    /// Adds the 64-byte greeting: signature, version, mechanism NULL, as-server, then `filler`
    /// (31 bytes a decoder must ignore; zeros when empty).
    public mutating func greeting(major: UInt8 = 3, minor: UInt8 = 1, asServer: Bool = false, filler: [UInt8] = []) {
        precondition(major >= 3 && filler.count <= 31, "a ZMTP 3 greeting")
        var greeting = Self.nullGreeting
        greeting[10] = major
        greeting[11] = minor
        greeting[32] = asServer ? 1 : 0
        greeting.replaceSubrange(33..<(33 + filler.count), with: filler)
        bytes.append(contentsOf: greeting)
        expected.append(.greeting(major: major, minor: minor))
    }

    /// Signature, version 3.1, mechanism NULL, as-server 0, zero filler.
    private static let nullGreeting: [UInt8] =
        [0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0x7F, 3, 1] + Array("NULL".utf8) + [UInt8](repeating: 0, count: 48)

    /// Adds READY with `properties` in this order (`Socket-Type` among them); `longHeader` gives
    /// its frame an 8-byte size even when it is short.
    public mutating func ready(_ properties: [(name: String, value: [UInt8])], longHeader: Bool = false) {
        var data: [UInt8] = []
        var seen: [String: [UInt8]] = [:]
        for (name, value) in properties {
            data.append(UInt8(name.utf8.count))
            data.append(contentsOf: name.utf8)
            Self.appendBigEndian(UInt64(value.count), bytes: 4, to: &data)
            data.append(contentsOf: value)
            seen[name] = value
        }
        appendCommand("READY", data, longHeader: longHeader)
        expected.append(.ready(seen))
    }

    /// Adds READY naming `socketType`, and `Identity` when given.
    public mutating func ready(socketType: String = "DEALER", identity: [UInt8]? = nil) {
        var properties = [(name: "Socket-Type", value: Array(socketType.utf8))]
        if let identity { properties.append((name: "Identity", value: identity)) }
        ready(properties)
    }

    /// Adds a message of one or more frames; `longHeaders` gives short frames 8-byte sizes too.
    public mutating func message(_ frames: [[UInt8]], longHeaders: Bool = false) {
        precondition(!frames.isEmpty, "a message has a frame")
        for (index, body) in frames.enumerated() {
            let more = index < frames.count - 1
            appendFrame(body, flags: more ? Self.more : 0, longHeader: longHeaders)
            expected.append(.frame(body, more: more))
        }
    }

    /// Adds PING with a TTL and up to 16 bytes of context.
    public mutating func ping(ttl: UInt16, context: [UInt8] = []) {
        precondition(context.count <= 16, "PING's context is at most 16 bytes")
        appendCommand("PING", [UInt8(ttl >> 8), UInt8(ttl & 0xFF)] + context, longHeader: false)
        expected.append(.ping(ttl: ttl, context: context))
    }

    /// Adds a command a ROUTER ignores (PONG, SUBSCRIBE, CANCEL, or an unknown name).
    public mutating func command(_ name: String, data: [UInt8] = [], longHeader: Bool = false) {
        precondition(!["READY", "PING", "ERROR"].contains(name), "a command a ROUTER ignores")
        appendCommand(name, data, longHeader: longHeader)
        expected.append(.command(name: Array(name.utf8)))
    }

    /// Appends raw bytes that the events do not describe (to build broken streams).
    public mutating func append(raw: [UInt8]) {
        bytes += raw
    }

    private mutating func appendCommand(_ name: String, _ data: [UInt8], longHeader: Bool) {
        var body = [UInt8(name.utf8.count)]
        body.append(contentsOf: name.utf8)
        body.append(contentsOf: data)
        appendFrame(body, flags: Self.command, longHeader: longHeader)
    }

    private mutating func appendFrame(_ body: [UInt8], flags: UInt8, longHeader: Bool) {
        if longHeader || body.count > 255 {
            bytes.append(flags | Self.long)
            Self.appendBigEndian(UInt64(body.count), bytes: 8, to: &bytes)
        } else {
            bytes.append(flags)
            bytes.append(UInt8(body.count))
        }
        bytes.append(contentsOf: body)
    }

    /// `value`'s low `count` bytes, most significant first (ZMTP's byte order for sizes).
    public static func bigEndian(_ value: UInt64, bytes count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        appendBigEndian(value, bytes: count, to: &bytes)
        return bytes
    }

    private static func appendBigEndian(_ value: UInt64, bytes count: Int, to bytes: inout [UInt8]) {
        var shift = 8 * UInt64(count)
        while shift > 0 {
            shift -= 8
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }
}
