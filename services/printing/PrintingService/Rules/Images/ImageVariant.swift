import Contract
import Foundation
import PrintingContract

/// A scaled copy of an image for a phone's screen: one of the fixed widths, the height that keeps
/// the displayed aspect, never wider than the original, and a tag that names it for ever (an
/// image's content never changes once stored).
public struct ImageVariant: Sendable, Hashable {
    /// The width asked for (one of ``Printing/ImageContent/widths``).
    public let requestedWidth: Int
    /// Pixels of the result, as displayed.
    public let width: Int
    public let height: Int
    /// SHA-256 of the original, hex.
    public let sha256: String
    /// Width of the original as displayed.
    public let sourceWidth: Int

    /// The least decoded pixels per original pixel that still fill the width.
    public var decodeScale: Double { Double(width) / Double(max(1, sourceWidth)) }

    /// JPEG quality of every variant: small on a slow network and still clean at 1080 px.
    public static let quality: Int32 = 78
    /// Bumped when the rendering changes, so caches holding the old bytes see a new tag.
    public static let version = 1

    /// The variant of an image displayed `imageWidth` × `imageHeight` at `width`; a width not
    /// served is `invalid_argument` naming `w`.
    public init(width: Int, imageWidth: Int, imageHeight: Int, sha256: String) throws(ServiceError) {
        guard Printing.ImageContent.widths.contains(width) else {
            throw ServiceError.invalidArgument(
                "w must be one of \(Printing.ImageContent.widths.map(String.init).joined(separator: ", "))", field: "w")
        }
        requestedWidth = width
        self.width = max(1, min(width, imageWidth))
        height = max(1, Int((Double(imageHeight) * Double(self.width) / Double(max(1, imageWidth))).rounded()))
        self.sha256 = sha256
        sourceWidth = imageWidth
    }

    /// The strong entity tag, quoted.
    public var entityTag: String { "\"\(sha256)-w\(requestedWidth)-v\(Self.version)\"" }

    /// The file name under the variants directory.
    public var fileName: String { "\(sha256)-w\(requestedWidth)-v\(Self.version).jpg" }

    /// Whether `ifNoneMatch` (a comma-separated list of tags, weak ones included, or `*`) names this variant.
    public func isMatched(by ifNoneMatch: String?) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == entityTag
        }
    }
}
