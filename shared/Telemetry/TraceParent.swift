/// A W3C Trace Context `traceparent` (version 00): trace id, parent span id and flags.
///
/// Parsing follows the W3C rules: two lower-case hex digits of version (not `ff`), 32 of trace id
/// and 16 of parent id (neither all zeros), two of flags, separated by `-`; a version above 00
/// may carry more fields after a further `-`, which are ignored. Anything else is no trace
/// context (the receiver then starts a new trace).
public struct TraceParent: Sendable, Hashable {
    /// The trace id's high and low 64 bits.
    public var traceIdHigh: UInt64
    public var traceIdLow: UInt64
    /// The span id of the caller's span (the parent of the receiver's).
    public var spanId: UInt64
    /// Trace flags; bit 0 is "sampled".
    public var flags: UInt8

    /// A trace context from its parts.
    public init(traceIdHigh: UInt64, traceIdLow: UInt64, spanId: UInt64, flags: UInt8) {
        self.traceIdHigh = traceIdHigh
        self.traceIdLow = traceIdLow
        self.spanId = spanId
        self.flags = flags
    }

    /// Whether the caller recorded its span (the `sampled` flag).
    public var sampled: Bool { flags & 1 == 1 }

    /// Parses a `traceparent` header; nil when it is not a valid one.
    public init?(_ header: some StringProtocol) {
        var parsed: TraceParent?
        var copy = String(header)
        copy.withUTF8 { bytes in parsed = TraceParent(utf8: bytes) }
        guard let parsed else { return nil }
        self = parsed
    }

    /// Parses the UTF-8 bytes of a `traceparent` header.
    public init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count >= 55, bytes[2] == 0x2D, bytes[35] == 0x2D, bytes[52] == 0x2D,
            let version = Self.hex(bytes, 0, 2), version != 0xFF,
            version != 0 || bytes.count == 55,
            bytes.count == 55 || bytes[55] == 0x2D,
            let high = Self.hex(bytes, 3, 16), let low = Self.hex(bytes, 19, 16), high != 0 || low != 0,
            let span = Self.hex(bytes, 36, 16), span != 0,
            let flags = Self.hex(bytes, 53, 2)
        else { return nil }
        self.init(traceIdHigh: high, traceIdLow: low, spanId: span, flags: UInt8(flags))
    }

    /// Whether `header` is a valid `traceparent` (without building one).
    public static func isValid(_ header: String) -> Bool {
        var header = header
        return header.withUTF8 { TraceParent(utf8: $0) != nil }
    }

    /// The header value, version 00.
    public var header: String {
        var text = [UInt8]()
        text.reserveCapacity(55)
        text.append(contentsOf: [0x30, 0x30, 0x2D])
        Self.appendHex(traceIdHigh, digits: 16, to: &text)
        Self.appendHex(traceIdLow, digits: 16, to: &text)
        text.append(0x2D)
        Self.appendHex(spanId, digits: 16, to: &text)
        text.append(0x2D)
        Self.appendHex(UInt64(flags), digits: 2, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// The trace id, 32 lower-case hex digits (what log lines carry as `traceId`).
    public var traceIdHex: String {
        var text = [UInt8]()
        text.reserveCapacity(32)
        Self.appendHex(traceIdHigh, digits: 16, to: &text)
        Self.appendHex(traceIdLow, digits: 16, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// The span id, 16 lower-case hex digits.
    public var spanIdHex: String { Self.hex(spanId) }

    /// `value` as 16 lower-case hex digits.
    public static func hex(_ value: UInt64) -> String {
        var text = [UInt8]()
        text.reserveCapacity(16)
        appendHex(value, digits: 16, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// The trace id of a `traceparent` header without parsing the rest: its 32 hex digits, when
    /// the header is valid.
    public static func traceId(of header: String) -> String? {
        guard isValid(header) else { return nil }
        let start = header.utf8.index(header.utf8.startIndex, offsetBy: 3)
        let end = header.utf8.index(start, offsetBy: 32)
        return String(header[start..<end])
    }

    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    static func appendHex(_ value: UInt64, digits count: Int, to text: inout [UInt8]) {
        var shift = (count - 1) * 4
        while shift >= 0 {
            text.append(digits[Int((value >> UInt64(shift)) & 0xF)])
            shift -= 4
        }
    }

    /// `count` lower-case hex digits at `offset` (at most 16), or nil.
    static func hex(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int, _ count: Int) -> UInt64? {
        var value: UInt64 = 0
        for index in offset..<(offset + count) {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}

/// `tracestate`: vendors' opaque entries, passed on as received when it looks sane (printable
/// ASCII, at most 512 characters, as W3C asks a receiver to keep at least); dropped otherwise.
public enum TraceState {
    /// `header` when it may be passed on, else nil.
    public static func sanitized(_ header: String?) -> String? {
        guard let header, !header.isEmpty, header.utf8.count <= 512,
            header.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
        else { return nil }
        return header
    }
}
