import Foundation

/// One e-mail as RFC 5322 text: headers (Message-ID, Date, RFC 2047 encoded UTF-8 subject) and a
/// multipart/alternative body with a plain-text and an HTML part, both UTF-8 in base64. With
/// attachments, inline ones wrap it in multipart/related and the others in multipart/mixed.
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
    /// Files the mail carries (see ``MailAttachment``).
    public var attachments: [MailAttachment] = []

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
        let seed = DerivedID.hash(messageId).prefix(24)
        var html = html
        for attachment in attachments {
            if let url = attachment.replacesURL, let id = attachment.contentId, !url.isEmpty {
                html = html.replacingOccurrences(of: url, with: "cid:\(id)")
            }
        }
        var body = Self.multipart(
            "alternative", boundary: "=_bp_\(seed)",
            parts: [
                ["Content-Type: text/plain; charset=UTF-8", "Content-Transfer-Encoding: base64", ""]
                    + Self.base64Lines(Data(text.utf8)),
                ["Content-Type: text/html; charset=UTF-8", "Content-Transfer-Encoding: base64", ""]
                    + Self.base64Lines(Data(html.utf8)),
            ])
        let inline = attachments.filter { $0.contentId != nil }
        if !inline.isEmpty {
            body = Self.multipart(
                "related", boundary: "=_bp_r_\(seed)", parts: [body] + inline.map { $0.part() },
                extra: "; type=\"multipart/alternative\"")
        }
        let files = attachments.filter { $0.contentId == nil }
        if !files.isEmpty {
            body = Self.multipart("mixed", boundary: "=_bp_m_\(seed)", parts: [body] + files.map { $0.part() })
        }
        let lines = [
            "From: " + (fromName.map { Self.encodeWord($0) + " <\(from)>" } ?? "<\(from)>"),
            "To: <\(to)>",
            "Subject: " + Self.encodeHeader(subject),
            "Date: " + Self.rfc5322(date),
            "Message-ID: <\(messageId)>",
            "MIME-Version: 1.0",
        ]
        return (lines + body).joined(separator: "\r\n") + "\r\n"
    }

    /// A multipart entity: its Content-Type header, a blank line, the preamble and each part
    /// (headers, blank line, content) between the boundaries.
    static func multipart(_ subtype: String, boundary: String, parts: [[String]], extra: String = "") -> [String] {
        var lines = ["Content-Type: multipart/\(subtype); boundary=\"\(boundary)\"\(extra)", ""]
        lines.append("This is a multi-part message in MIME format.")
        for part in parts { lines += ["--\(boundary)"] + part }
        lines.append("--\(boundary)--")
        return lines
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
