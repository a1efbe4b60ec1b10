/// A pull reader of JSON text (RFC 8259) for the few shapes read on every request (request
/// metadata, NavUP's locate and route requests), where `JSONDecoder`'s tree and containers cost
/// more than the request's own work.
///
/// It reads what it is asked for and throws ``Malformed`` at the first thing that does not fit.
/// ``Malformed`` carries only the byte offset, never input text. Callers that can fall back do:
/// ``WireJSONDecodable`` types are read again with `JSONDecoder` when this reader refuses, so an
/// error message is always the decoder's, and input this reader is too strict for still decodes.
public struct JSONReader {
    /// The input did not have the shape asked for, at byte `offset`.
    public struct Malformed: Error, Equatable {
        public let offset: Int
    }

    private let bytes: [UInt8]
    private var index = 0

    /// A reader at the start of `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    private var malformed: Malformed { Malformed(offset: index) }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8) throws(Malformed) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { throw malformed }
        index += 1
    }

    /// The next byte after whitespace, not consumed.
    private mutating func peek() throws(Malformed) -> UInt8 {
        skipWhitespace()
        guard index < bytes.count else { throw malformed }
        return bytes[index]
    }

    /// Reads an object, calling `member` with each key; `member` must read the key's value
    /// (or ``skipValue()`` it). A key that repeats is malformed here (`JSONDecoder` keeps the
    /// first, a hand-written reader would keep the last: refusing leaves it to the decoder).
    public mutating func readObject(
        _ member: (inout JSONReader, String) throws(Malformed) -> Void
    ) throws(Malformed) {
        try expect(UInt8(ascii: "{"))
        if try peek() == UInt8(ascii: "}") {
            index += 1
            return
        }
        var keys: [String] = []
        keys.reserveCapacity(8)
        while true {
            let key = try readString()
            guard !keys.contains(key) else { throw malformed }
            keys.append(key)
            try expect(UInt8(ascii: ":"))
            try member(&self, key)
            switch try peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return
            default: throw malformed
            }
        }
    }

    /// Reads an array, calling `element` for each element, which it must read.
    public mutating func readArray(_ element: (inout JSONReader) throws(Malformed) -> Void) throws(Malformed) {
        try expect(UInt8(ascii: "["))
        if try peek() == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            try element(&self)
            switch try peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return
            default: throw malformed
            }
        }
    }

    /// Consumes a `null` and answers true, or answers false and consumes nothing.
    public mutating func readNull() throws(Malformed) -> Bool {
        guard try peek() == UInt8(ascii: "n") else { return false }
        try readLiteral("null")
        return true
    }

    /// Reads `true` or `false`.
    public mutating func readBool() throws(Malformed) -> Bool {
        switch try peek() {
        case UInt8(ascii: "t"):
            try readLiteral("true")
            return true
        case UInt8(ascii: "f"):
            try readLiteral("false")
            return false
        default: throw malformed
        }
    }

    private mutating func readLiteral(_ literal: StaticString) throws(Malformed) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw malformed }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] { throw malformed }
        index += count
    }

    /// Reads a number written as an integer (no fraction, no exponent) that fits `Int64`.
    public mutating func readInt64() throws(Malformed) -> Int64 {
        _ = try peek()
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let start = index
        var value: Int64 = 0
        while index < bytes.count, case let digit = bytes[index] &- UInt8(ascii: "0"), digit < 10 {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.subtractingReportingOverflow(Int64(digit))  // negative accumulator reaches Int64.min
            guard !overflow1, !overflow2 else { throw malformed }
            value = next
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { throw malformed }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
            throw malformed
        }
        if negative { return value }
        guard value != .min else { throw malformed }
        return -value
    }

    /// Reads an integer number that fits `Int`.
    public mutating func readInt() throws(Malformed) -> Int {
        let value = try readInt64()
        guard let int = Int(exactly: value) else { throw malformed }
        return int
    }

    /// Reads a number (RFC 8259 §6 syntax) as a finite `Double`.
    public mutating func readDouble() throws(Malformed) -> Double {
        _ = try peek()
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard try digits(leadingZeroAlone: true) else { throw malformed }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard try digits(leadingZeroAlone: false) else { throw malformed }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard try digits(leadingZeroAlone: false) else { throw malformed }
        }
        // The syntax is checked above, so the standard library's parser sees only JSON numbers.
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw malformed }
        return value
    }

    /// Consumes a run of digits; whether there was one. With `leadingZeroAlone`, a run starting
    /// with 0 must be that 0 alone (an integer part).
    private mutating func digits(leadingZeroAlone: Bool) throws(Malformed) -> Bool {
        let start = index
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
        if leadingZeroAlone, index - start > 1, bytes[start] == UInt8(ascii: "0") { throw malformed }
        return index > start
    }

    /// Reads a string, with its escapes; text that is not valid UTF-8, or a lone surrogate, is
    /// malformed.
    public mutating func readString() throws(Malformed) -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                guard let text = String(validating: bytes[start..<index], as: UTF8.self) else { throw malformed }
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return try readEscapedString(from: start) }
            guard byte >= 0x20 else { throw malformed }
            index += 1
        }
        throw malformed
    }

    /// The rest of a string that holds an escape; `start` is its first byte.
    private mutating func readEscapedString(from start: Int) throws(Malformed) -> String {
        var utf8 = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: utf8, as: UTF8.self) else { throw malformed }
                return text
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw malformed }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        try readLiteral("\\u")
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw malformed }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw malformed }
                    utf8.append(contentsOf: UTF8.encode(unicode)!)
                default: throw malformed
                }
            case ..<0x20: throw malformed
            default: utf8.append(byte)
            }
        }
        throw malformed
    }

    private mutating func hex4() throws(Malformed) -> UInt32 {
        guard index + 4 <= bytes.count else { throw malformed }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index] | 0x20
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: throw malformed
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// Reads and drops one value of any kind.
    public mutating func skipValue() throws(Malformed) {
        switch try peek() {
        case UInt8(ascii: "{"): try readObject { reader, _ throws(Malformed) in try reader.skipValue() }
        case UInt8(ascii: "["): try readArray { reader throws(Malformed) in try reader.skipValue() }
        case UInt8(ascii: "\""): _ = try readString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"): _ = try readNull()
        default: _ = try readDouble()
        }
    }

    /// Checks that only whitespace follows.
    public mutating func finish() throws(Malformed) {
        skipWhitespace()
        guard index == bytes.count else { throw malformed }
    }
}

/// A type read with ``JSONReader`` on the request path, with `JSONDecoder` as its fallback:
/// ``Wire/decodePayload(_:from:)`` tries the reader, and decodes with `JSONDecoder` when the
/// reader refuses, so errors name fields as before and nothing the decoder accepted is refused.
/// `init(reading:)` must accept only what the `Decodable` conformance accepts, into the same value.
public protocol WireJSONDecodable: Decodable {
    /// Reads one value; throws ``JSONReader/Malformed`` on anything it does not read exactly.
    init(reading reader: inout JSONReader) throws(JSONReader.Malformed)
}

extension WireJSONDecodable {
    /// The value read from `bytes` by ``JSONReader`` alone (whitespace only after it), or `nil`.
    public static func read(from bytes: [UInt8]) -> Self? {
        var reader = JSONReader(bytes)
        do {
            let value = try Self(reading: &reader)
            try reader.finish()
            return value
        } catch {
            return nil
        }
    }
}

extension JSONReader {
    /// Reads an object whose members `member` reads, skipping keys it answers false for (a
    /// `Decodable` type ignores keys it does not know).
    public mutating func readMembers(
        _ member: (inout JSONReader, String) throws(Malformed) -> Bool
    ) throws(Malformed) {
        try readObject { reader, key throws(Malformed) in
            if try !member(&reader, key) { try reader.skipValue() }
        }
    }

    /// `nil` for a `null`, else the value `read` reads (an optional field, which `JSONDecoder`
    /// also takes as absent when it is `null`).
    public mutating func readOptional<T>(_ read: (inout JSONReader) throws(Malformed) -> T) throws(Malformed) -> T? {
        try readNull() ? nil : try read(&self)
    }

    /// `value`, or ``Malformed`` when a required field was absent.
    public func required<T>(_ value: T?) throws(Malformed) -> T {
        guard let value else { throw malformed }
        return value
    }
}
