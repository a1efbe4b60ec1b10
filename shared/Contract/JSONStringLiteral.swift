/// JSON string literals written by hand where a whole encoder would be too much: log lines
/// and the broker's own error replies.
extension String {
    /// Appends `text` to this string as a JSON string literal: quoted, with `"`, `\` and the
    /// control characters escaped (RFC 8259 §7), everything else as it is.
    public mutating func appendJSONStringLiteral(_ text: String) {
        append("\"")
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": append("\\\"")
            case "\\": append("\\\\")
            case "\n": append("\\n")
            case "\r": append("\\r")
            case "\t": append("\\t")
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: unicodeScalars.append(scalar)
            }
        }
        append("\"")
    }

    /// `text` as a JSON string literal.
    public static func jsonStringLiteral(_ text: String) -> String {
        var literal = ""
        literal.appendJSONStringLiteral(text)
        return literal
    }
}
