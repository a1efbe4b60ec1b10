/// JSON string literals written by hand where a whole encoder would be too much: log lines
/// and the broker's own error replies.
extension String {
    /// Appends `text` to this string as a JSON string literal: quoted, with `"`, `\` and the
    /// control characters escaped (RFC 8259 §7), everything else as it is.
    public mutating func appendJSONStringLiteral(_ text: String) {
        var literal: [UInt8] = []
        literal.reserveCapacity(text.utf8.count + 2)
        literal.appendJSONStringLiteral(text)
        append(String(decoding: literal, as: UTF8.self))
    }

    /// `text` as a JSON string literal.
    public static func jsonStringLiteral(_ text: String) -> String {
        var literal = ""
        literal.appendJSONStringLiteral(text)
        return literal
    }
}

extension Array where Element == UInt8 {
    /// Appends `text`'s UTF-8 as a JSON string literal: quoted, with `"`, `\` and the control
    /// characters escaped (RFC 8259 §7), everything else as it is; text with nothing to escape
    /// (the usual case) is copied whole.
    public mutating func appendJSONStringLiteral(_ text: String) {
        append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            guard bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                append(contentsOf: bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""): append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): append(contentsOf: #"\\"#.utf8)
                case UInt8(ascii: "\n"): append(contentsOf: #"\n"#.utf8)
                case UInt8(ascii: "\r"): append(contentsOf: #"\r"#.utf8)
                case UInt8(ascii: "\t"): append(contentsOf: #"\t"#.utf8)
                case ..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    append(contentsOf: #"\u00"#.utf8)
                    append(hex[Int(byte >> 4)])
                    append(hex[Int(byte & 0xF)])
                default: append(byte)
                }
            }
        }
        append(UInt8(ascii: "\""))
    }
}
