import Foundation

/// One e-mail as RFC 5322 text: headers (Message-ID, Date, RFC 2047 encoded UTF-8 subject) and a
/// multipart/alternative body with a plain-text and an HTML part, both UTF-8 in base64.
public struct MailMessage: Sendable, Equatable {
    /// The sender address, e.g. `Backplane <no-reply@backplane.local>`'s address part.
    public var from: String
    /// A display name for the sender, if any.
    public var fromName: String?
    /// The recipient address.
    public var to: String
    /// The subject (any Unicode).
    public var subject: String
    /// The plain-text part.
    public var text: String
    /// The HTML part.
    public var html: String
    /// The Message-ID without angle brackets, e.g. `<notification id>@backplane.local`.
    public var messageId: String
    /// The Date header's time.
    public var date: Date

    /// Creates a message.
    public init(
        from: String, fromName: String? = nil, to: String, subject: String, text: String, html: String,
        messageId: String, date: Date
    ) {
        self.from = from
        self.fromName = fromName
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.messageId = messageId
        self.date = date
    }

    /// The message as it goes after DATA (CRLF line ends, not yet dot-stuffed).
    public func rendered() -> String {
        let boundary = "=_bp_" + DerivedID.hash(messageId).prefix(24)
        var lines = [
            "From: " + (fromName.map { Self.encodeWord($0) + " <\(from)>" } ?? "<\(from)>"),
            "To: <\(to)>",
            "Subject: " + Self.encodeHeader(subject),
            "Date: " + Self.rfc5322(date),
            "Message-ID: <\(messageId)>",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
            "",
            "This is a multi-part message in MIME format.",
        ]
        for (type, content) in [("text/plain", text), ("text/html", html)] {
            lines += [
                "--\(boundary)",
                "Content-Type: \(type); charset=UTF-8",
                "Content-Transfer-Encoding: base64",
                "",
            ]
            lines += Self.base64Lines(Data(content.utf8))
        }
        lines.append("--\(boundary)--")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A header value: as it is when printable ASCII, else RFC 2047 `=?UTF-8?B?...?=` words of at
    /// most 75 characters each, never splitting a character, folded onto continuation lines.
    public static func encodeHeader(_ value: String) -> String {
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) && value.utf8.count <= 900 { return value }
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in value {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45 {
                words.append(encodeWord(bytes: chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append(encodeWord(bytes: chunk)) }
        return words.joined(separator: "\r\n ")
    }

    static func encodeWord(_ text: String) -> String {
        text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") })
            ? "\"\(text)\"" : encodeWord(bytes: Array(text.utf8))
    }

    static func encodeWord(bytes: [UInt8]) -> String { "=?UTF-8?B?" + Data(bytes).base64EncodedString() + "?=" }

    static func base64Lines(_ data: Data) -> [String] {
        let encoded = data.base64EncodedString()
        var lines: [String] = []
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let end = encoded.index(index, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            lines.append(String(encoded[index..<end]))
            index = end
        }
        return lines
    }

    /// `Mon, 01 Jan 2024 00:00:00 +0000`.
    public static func rfc5322(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        return "\(days[(parts.weekday ?? 1) - 1]), \(two(parts.day)) \(months[(parts.month ?? 1) - 1]) "
            + "\(parts.year ?? 1970) \(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) +0000"
    }

    /// SMTP transparency (RFC 5321 4.5.2): a line that starts with `.` gets another `.`.
    public static func dotStuffed(_ text: String) -> String {
        var output = text.hasPrefix(".") ? "." + text : text
        output = output.replacingOccurrences(of: "\r\n.", with: "\r\n..")
        return output
    }
}
