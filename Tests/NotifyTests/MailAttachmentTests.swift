import Contract
import Foundation
import NotifyService
import Testing

/// The MIME structure of mails with attachments, read back part by part.
@Suite("notify: mail attachments (MIME)")
struct MailAttachmentTests {
    static let jpeg = Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    func message(_ attachments: [MailAttachment]) -> String {
        var message = MailMessage(
            from: "no-reply@backplane.local", to: "bo@example.org", subject: "Ann sent you an e-card",
            text: "Hej\n\nSee your card: https://x.example/v1/ecards/tok",
            html:
                "<p>Hej</p><p><img src=\"https://x.example/v1/ecards/tok\" alt=\"e-card\"></p>",
            messageId: "n1@backplane.local", date: Date(timeIntervalSince1970: 0))
        message.attachments = attachments
        return message.rendered()
    }

    /// The boundary a `Content-Type: multipart/...` line declares.
    func boundary(_ header: Substring) -> String? {
        guard let start = header.range(of: "boundary=\"") else { return nil }
        return String(header[start.upperBound...].prefix { $0 != "\"" })
    }

    /// The parts between `--boundary` lines (each without its trailing CRLF).
    func parts(of body: String, boundary: String) -> [String] {
        let pieces = body.components(separatedBy: "\r\n--\(boundary)")
        return pieces.dropFirst().filter { !$0.hasPrefix("--") }.map { String($0.dropFirst()) }  // "\r\n" is one Character
    }

    /// Headers and the base64-decoded content of one part.
    func decode(_ part: String) -> (headers: String, content: Data?) {
        let split = part.components(separatedBy: "\r\n\r\n")
        let body = split.dropFirst().joined(separator: "\r\n\r\n").components(separatedBy: "\r\n")
            .prefix { !$0.hasPrefix("--") }.joined()
        return (split[0], Data(base64Encoded: body))
    }

    @Test("an inline image: multipart/related around the alternative, Content-ID, HTML refers to cid:, lines ≤ 76")
    func inlineImage() throws {
        let mail = message([
            MailAttachment(
                contentType: "image/jpeg", filename: "ecard.jpg", data: Self.jpeg,
                contentId: "ecard.n1@backplane.local",
                replacesURL: "https://x.example/v1/ecards/tok")
        ])
        let lines = mail.components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.utf8.count <= 76 || $0.hasPrefix("Content-Type:") }, "base64 at 76 a line")
        #expect(!mail.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "CRLF line ends only")
        let top = try #require(lines.first { $0.hasPrefix("Content-Type: multipart/") })
        #expect(top.contains("multipart/related") && top.contains("type=\"multipart/alternative\""))
        let outer = try #require(boundary(Substring(top)))
        #expect(mail.hasSuffix("--\(outer)--\r\n"))
        let related = parts(of: mail, boundary: outer)
        #expect(related.count == 2, "the alternative, then the image")
        let inner = try #require(boundary(Substring(related[0])))
        #expect(inner != outer && !outer.contains(inner) && !inner.contains(outer))
        let alternative = parts(of: related[0], boundary: inner)
        #expect(alternative.count == 2)
        let html = String(decoding: try #require(decode(alternative[1]).content), as: UTF8.self)
        #expect(html.contains("src=\"cid:ecard.n1@backplane.local\""), "\(html)")
        #expect(!html.contains("https://x.example"))
        let text = String(decoding: try #require(decode(alternative[0]).content), as: UTF8.self)
        #expect(text.contains("https://x.example/v1/ecards/tok"), "the plain-text part keeps the link")
        let image = decode(related[1])
        #expect(image.headers.contains("Content-Type: image/jpeg; name=\"ecard.jpg\""))
        #expect(image.headers.contains("Content-ID: <ecard.n1@backplane.local>"))
        #expect(image.headers.contains("Content-Disposition: inline"))
        #expect(image.content == Self.jpeg, "the bytes survive base64")
    }

    @Test("a plain attachment goes in multipart/mixed; no attachment keeps multipart/alternative alone")
    func mixedAndPlain() throws {
        let mixed = message([MailAttachment(contentType: "application/pdf", filename: "a.pdf", data: Data("%PDF".utf8))]
        )
        #expect(mixed.contains("Content-Type: multipart/mixed") && !mixed.contains("multipart/related"))
        #expect(mixed.contains("Content-Disposition: attachment; filename=\"a.pdf\""))
        let plain = message([])
        let types = plain.components(separatedBy: "\r\n").filter { $0.hasPrefix("Content-Type: multipart/") }
        #expect(types.count == 1 && types[0].contains("multipart/alternative"))
        let alternative = parts(of: plain, boundary: try #require(boundary(Substring(types[0]))))
        let html = String(decoding: try #require(decode(alternative[1]).content), as: UTF8.self)
        #expect(html.contains("src=\"https://x.example/v1/ecards/tok\""), "the HTML keeps its link")
    }
}
