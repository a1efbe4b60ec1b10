import NIOCore
import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#endif

/// The status line and header fields of one HTTP/1.x response, read from its bytes.
///
/// The load generator reads tens of thousands of these a second on the machine it measures, so
/// the head is read as bytes: the three fields that decide how the body ends (`Content-Length`,
/// `Transfer-Encoding`, `Connection`) are found by comparing bytes, and the fields as strings
/// (``headers``) are made only when a scenario asks for them. Reading the head with `String`
/// splitting and Foundation's trimming took a third of the load generator's CPU.
struct ResponseHead: Sendable {
    /// How the body that follows the head ends.
    enum Framing: Equatable, Sendable {
        case length(Int)
        case chunked
        /// At the close of the connection.
        case close
    }

    let status: Int
    let keepAlive: Bool
    let framing: Framing
    /// The head's bytes: the status line through the blank line.
    let bytes: ByteBuffer

    /// What is wrong with a head that cannot be read.
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads `bytes` (the status line through the blank line). `bodiless`: the answer to a HEAD
    /// request, which has no body whatever its fields say.
    init(_ bytes: ByteBuffer, bodiless: Bool) throws {
        self.bytes = bytes
        var status = 0
        var keepAlive = false
        var length: Int?
        var chunked = false
        var lengthIsBad = false
        let statusLineIsGood = bytes.withUnsafeReadableBytes { head -> Bool in
            // "HTTP/1.x SSS" at least.
            guard head.count >= 12, head.starts(with: Self.versionPrefix), head[8] == UInt8(ascii: " ") else {
                return false
            }
            for index in 9..<12 {
                let digit = head[index] &- UInt8(ascii: "0")
                guard digit <= 9 else { return false }
                status = status * 10 + Int(digit)
            }
            keepAlive = head[7] == UInt8(ascii: "1")
            Self.forEachField(in: head) { name, value in
                if Self.equalsIgnoringCase(head[name], Self.contentLength) {
                    var number = 0
                    var digits = 0
                    for byte in head[value] {
                        let digit = byte &- UInt8(ascii: "0")
                        guard digit <= 9, digits < 18 else {
                            lengthIsBad = true
                            return
                        }
                        number = number * 10 + Int(digit)
                        digits += 1
                    }
                    if digits == 0 { lengthIsBad = true } else { length = number }
                } else if Self.equalsIgnoringCase(head[name], Self.transferEncoding) {
                    chunked = Self.containsIgnoringCase(head[value], Self.chunkedToken)
                } else if Self.equalsIgnoringCase(head[name], Self.connection) {
                    if Self.containsIgnoringCase(head[value], Self.closeToken) { keepAlive = false }
                    if Self.containsIgnoringCase(head[value], Self.keepAliveToken) { keepAlive = true }
                }
            }
            return true
        }
        guard statusLineIsGood else { throw Malformed(description: "not an HTTP/1.x response") }
        self.status = status
        if bodiless || status == 204 || status == 304 || (100..<200).contains(status) {
            framing = .length(0)
        } else if chunked {
            framing = .chunked
        } else if lengthIsBad {
            throw Malformed(description: "a Content-Length that is not a number")
        } else if let length {
            framing = .length(length)
        } else {
            framing = .close
            keepAlive = false
        }
        self.keepAlive = keepAlive
    }

    /// The header fields, in order, as strings (names as sent, values without surrounding
    /// blanks).
    var headers: HTTPHeaders {
        bytes.withUnsafeReadableBytes { head in
            var headers = HTTPHeaders()
            Self.forEachField(in: head) { name, value in
                headers.add(
                    name: String(decoding: head[name], as: UTF8.self), value: String(decoding: head[value], as: UTF8.self))
            }
            return headers
        }
    }

    /// The index just past the first blank line (`\r\n\r\n`) of `buffer`'s readable bytes at or
    /// after `from` (an absolute index), or nil when there is none yet.
    static func endOfHead(in buffer: ByteBuffer, from: Int) -> Int? {
        find(crlfcrlf, in: buffer, from: from)?.upperBound
    }

    /// The absolute index range of the first `\r\n` (or `\r\n\r\n`, per `pattern`) in `buffer`'s
    /// readable bytes at or after `from`.
    static func find(_ pattern: [UInt8], in buffer: ByteBuffer, from: Int) -> Range<Int>? {
        let start = max(from, buffer.readerIndex) - buffer.readerIndex
        return buffer.withUnsafeReadableBytes { bytes -> Range<Int>? in
            var index = start
            while index + pattern.count <= bytes.count {
                // memchr finds the next "\r" at memory speed; then the rest of the pattern.
                guard let found = memchr(bytes.baseAddress! + index, Int32(pattern[0]), bytes.count - index) else {
                    return nil
                }
                let at = bytes.baseAddress!.distance(to: UnsafeRawPointer(found))
                guard at + pattern.count <= bytes.count else { return nil }
                if bytes[at..<(at + pattern.count)].elementsEqual(pattern) {
                    return (buffer.readerIndex + at)..<(buffer.readerIndex + at + pattern.count)
                }
                index = at + 1
            }
            return nil
        }
    }

    static let crlf: [UInt8] = [13, 10]
    static let crlfcrlf: [UInt8] = [13, 10, 13, 10]

    /// Calls `body` with the name and value ranges of every field line of `head` (the status line
    /// is skipped; a line without a colon is ignored); blanks around names and values are left
    /// out of the ranges.
    private static func forEachField(in head: UnsafeRawBufferPointer, _ body: (Range<Int>, Range<Int>) -> Void) {
        var lineStart = 0
        var first = true
        while lineStart < head.count {
            var lineEnd = lineStart
            while lineEnd < head.count && head[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            let next = lineEnd + 1
            if lineEnd > lineStart && head[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            defer { lineStart = next }
            if first {
                first = false
                continue
            }
            var colon = lineStart
            while colon < lineEnd && head[colon] != UInt8(ascii: ":") { colon += 1 }
            guard colon < lineEnd else { continue }
            body(trimmed(head, lineStart..<colon), trimmed(head, (colon + 1)..<lineEnd))
        }
    }

    private static func trimmed(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper && (bytes[lower] == 32 || bytes[lower] == 9) { lower += 1 }
        while upper > lower && (bytes[upper - 1] == 32 || bytes[upper - 1] == 9) { upper -= 1 }
        return lower..<upper
    }

    /// ASCII letters folded to lower case.
    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Whether `bytes` equals `lowercase` (lower-case ASCII) ignoring ASCII case.
    private static func equalsIgnoringCase(_ bytes: Slice<UnsafeRawBufferPointer>, _ lowercase: [UInt8]) -> Bool {
        bytes.count == lowercase.count && zip(bytes, lowercase).allSatisfy { lower($0) == $1 }
    }

    /// Whether `bytes` contains `lowercase` (lower-case ASCII) ignoring ASCII case.
    private static func containsIgnoringCase(_ bytes: Slice<UnsafeRawBufferPointer>, _ lowercase: [UInt8]) -> Bool {
        guard bytes.count >= lowercase.count else { return false }
        var start = bytes.startIndex
        while start + lowercase.count <= bytes.endIndex {
            if equalsIgnoringCase(bytes[start..<(start + lowercase.count)], lowercase) { return true }
            start += 1
        }
        return false
    }

    private static let versionPrefix = Array("HTTP/1.".utf8)
    private static let contentLength = Array("content-length".utf8)
    private static let transferEncoding = Array("transfer-encoding".utf8)
    private static let connection = Array("connection".utf8)
    private static let chunkedToken = Array("chunked".utf8)
    private static let closeToken = Array("close".utf8)
    private static let keepAliveToken = Array("keep-alive".utf8)
}
