import Foundation

/// A file carried by a mail. An inline one (with a Content-ID) goes into a multipart/related
/// body beside the HTML part that shows it; any other is a download in multipart/mixed.
public struct MailAttachment: Sendable, Equatable {
    /// The media type, e.g. `image/jpeg`.
    public var contentType: String
    /// The file name offered to the reader (printable ASCII).
    public var filename: String
    public var data: Data
    /// The Content-ID without angle brackets, e.g. `ecard-1@backplane.local`; set for inline parts.
    public var contentId: String?
    /// A URL the HTML part references (e.g. in `src="..."`) that this inline part stands in for:
    /// every occurrence in the HTML becomes `cid:<contentId>`.
    public var replacesURL: String?

    /// Creates an attachment; with `contentId` it is inline.
    public init(
        contentType: String, filename: String, data: Data, contentId: String? = nil, replacesURL: String? = nil
    ) {
        self.contentType = contentType
        self.filename = filename
        self.data = data
        self.contentId = contentId
        self.replacesURL = replacesURL
    }

    /// The part's headers and base64 body lines.
    func part() -> [String] {
        var lines = [
            "Content-Type: \(contentType); name=\"\(filename)\"",
            "Content-Transfer-Encoding: base64",
        ]
        if let contentId {
            lines += ["Content-ID: <\(contentId)>", "Content-Disposition: inline; filename=\"\(filename)\""]
        } else {
            lines.append("Content-Disposition: attachment; filename=\"\(filename)\"")
        }
        return lines + [""] + MailMessage.base64Lines(data)
    }
}
