import Contract

/// The words of one notification kind in one locale: a title (the mail subject and the push
/// title), a plain-text body and an HTML body, with `{{variable}}` placeholders.
public struct Template: Sendable, Equatable {
    /// The title, e.g. `Reset your password`.
    public var title: String
    /// The plain-text body (mail text part, push and inbox body).
    public var text: String
    /// The HTML body (mail HTML part); variables are HTML-escaped into it.
    public var html: String

    /// Creates a template.
    public init(title: String, text: String, html: String) {
        self.title = title
        self.text = text
        self.html = html
    }

    /// A rendered notification.
    public struct Rendered: Sendable, Equatable {
        public var title: String
        public var text: String
        public var html: String
    }

    /// Fills in `variables`; HTML-escapes them in the HTML part.
    public func render(_ variables: [String: String]) -> Rendered {
        Rendered(
            title: Self.fill(title, variables, escape: false), text: Self.fill(text, variables, escape: false),
            html: Self.fill(html, variables, escape: true))
    }

    /// The names of the `{{...}}` placeholders in all three parts.
    public var placeholders: Set<String> {
        var names = Set<String>()
        for part in [title, text, html] {
            var rest = Substring(part)
            while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
                names.insert(String(rest[open.upperBound..<close.lowerBound]))
                rest = rest[close.upperBound...]
            }
        }
        return names
    }

    static func fill(_ text: String, _ variables: [String: String], escape: Bool) -> String {
        var output = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            output += rest[..<open.lowerBound]
            let value = variables[String(rest[open.upperBound..<close.lowerBound])] ?? ""
            output += escape ? Self.escapeHTML(value) : value
            rest = rest[close.upperBound...]
        }
        return output + rest
    }

    /// `&`, `<`, `>`, `"` and `'` as entities.
    public static func escapeHTML(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            default: output.append(character)
            }
        }
        return output
    }
}
