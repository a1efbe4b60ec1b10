import Foundation

/// The upload formats, told apart by their first bytes (never by a name or a header alone).
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg = "image/jpeg"
    case png = "image/png"
    case bmp = "image/bmp"

    /// The format a `Content-Type` names (`image/jpg` and `image/x-ms-bmp` too), if any.
    public init?(contentType: String) {
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) }?
            .lowercased()
        switch type {
        case "image/jpeg", "image/jpg", "image/pjpeg": self = .jpeg
        case "image/png": self = .png
        case "image/bmp", "image/x-ms-bmp", "image/x-bmp": self = .bmp
        default: return nil
        }
    }

    /// The format `bytes` start like, if any.
    public static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: StampImage.pngSignature) { return .png }
        if bytes.starts(with: Array("BM".utf8)) { return .bmp }
        return nil
    }

    /// The file name extension of stored originals.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .bmp: "bmp"
        }
    }
}
