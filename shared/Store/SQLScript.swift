/// Splits a SQL script into its statements at top-level semicolons.
///
/// PostgresNIO runs every query with the extended protocol, which accepts one statement at a
/// time, so a multi-statement migration file is split here. Semicolons inside single-quoted
/// strings (including `E'...'` with backslash escapes), double-quoted identifiers,
/// dollar-quoted bodies (`$$ ... $$`, `$fn$ ... $fn$`), `--` comments and nested `/* */`
/// comments do not split. Not supported: SQL-standard function bodies (`BEGIN ATOMIC ... END`);
/// write such functions with a dollar-quoted body.
enum SQLScript {
    /// The statements of `script`, trimmed, without their terminating `;`; statements that are
    /// empty or only comments are dropped.
    static func statements(in script: String) -> [String] {
        let bytes = Array(script.utf8)
        var statements: [String] = []
        var start = 0
        var hasCode = false
        var i = 0

        func flush(upTo end: Int) {
            if hasCode {
                let text = String(decoding: bytes[start..<end], as: UTF8.self)
                statements.append(text.trimmingSQLWhitespace())
            }
            hasCode = false
            start = end + 1
        }

        while i < bytes.count {
            let byte = bytes[i]
            let next: UInt8? = i + 1 < bytes.count ? bytes[i + 1] : nil
            switch byte {
            case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
                while i < bytes.count, bytes[i] != UInt8(ascii: "\n") { i += 1 }
                continue
            case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
                i = skipBlockComment(bytes, from: i)
                continue
            case UInt8(ascii: ";"):
                flush(upTo: i)
                i += 1
                continue
            case UInt8(ascii: "'"):
                let escapes =
                    i > 0 && (bytes[i - 1] == UInt8(ascii: "E") || bytes[i - 1] == UInt8(ascii: "e"))
                    && (i < 2 || !isIdentifierByte(bytes[i - 2]))
                i = skipQuoted(bytes, from: i, quote: UInt8(ascii: "'"), backslashEscapes: escapes)
            case UInt8(ascii: "\""):
                i = skipQuoted(bytes, from: i, quote: UInt8(ascii: "\""), backslashEscapes: false)
            case UInt8(ascii: "$") where i == 0 || !isIdentifierByte(bytes[i - 1]):
                i = skipDollarQuoted(bytes, from: i)
            default:
                i += 1
            }
            if !isWhitespace(byte) { hasCode = true }
        }
        flush(upTo: bytes.count)
        return statements
    }

    /// Index just past the comment that opens at `from` (comments nest in PostgreSQL).
    private static func skipBlockComment(_ bytes: [UInt8], from: Int) -> Int {
        var depth = 0
        var i = from
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "*") {
                depth += 1
                i += 2
            } else if bytes[i] == UInt8(ascii: "*"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "/") {
                depth -= 1
                i += 2
                if depth == 0 { return i }
            } else {
                i += 1
            }
        }
        return i
    }

    /// Index just past the quoted text that opens at `from`; a doubled quote is an escaped quote.
    private static func skipQuoted(_ bytes: [UInt8], from: Int, quote: UInt8, backslashEscapes: Bool) -> Int {
        var i = from + 1
        while i < bytes.count {
            if backslashEscapes, bytes[i] == UInt8(ascii: "\\") {
                i += 2
            } else if bytes[i] == quote {
                if i + 1 < bytes.count, bytes[i + 1] == quote {
                    i += 2
                } else {
                    return i + 1
                }
            } else {
                i += 1
            }
        }
        return i
    }

    /// Index just past a dollar-quoted string opening at `from`, or `from + 1` if the `$` does
    /// not open one (a positional parameter like `$1`, or a stray `$`).
    private static func skipDollarQuoted(_ bytes: [UInt8], from: Int) -> Int {
        var end = from + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "$") {
            let byte = bytes[end]
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            guard isIdentifierByte(byte), !(end == from + 1 && isDigit) else { return from + 1 }
            end += 1
        }
        guard end < bytes.count else { return from + 1 }
        let tag = Array(bytes[from...end])
        var i = end + 1
        while i + tag.count <= bytes.count {
            if bytes[i] == UInt8(ascii: "$"), Array(bytes[i..<(i + tag.count)]) == tag {
                return i + tag.count
            }
            i += 1
        }
        return bytes.count
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "_") || byte >= 0x80
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t")
            || byte == UInt8(ascii: "\r") || byte == 0x0C
    }
}

extension String {
    /// The string without leading and trailing ASCII whitespace.
    fileprivate func trimmingSQLWhitespace() -> String {
        let scalars = unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = {
            $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" || $0 == "\u{0C}"
        }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }
}
