import Contract
import Foundation

/// The image type a preview is sent as: JPEG unless the request asks for PNG.
///
/// A preview is a photo for a phone's screen, where a JPEG is a fraction of a PNG's bytes, so
/// JPEG is the default; PNG is for a client that says it prefers it.
public enum PreviewFormat: String, Sendable, CaseIterable {
    case jpeg
    case png

    /// The `Content-Type` of the bytes.
    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        }
    }

    /// `format` when given (`jpeg` or `png`, any case; else 400 naming `format`); otherwise PNG
    /// when `accept` (an HTTP `Accept` header) gives `image/png` a higher quality value than
    /// `image/jpeg`, and JPEG in every other case (no header, a tie, or neither acceptable: the
    /// one representation is served rather than a 406).
    public static func choose(format: String?, accept: String?) throws(ServiceError) -> PreviewFormat {
        if let format {
            guard let chosen = PreviewFormat(rawValue: format.lowercased()) else {
                throw .invalidArgument("format is jpeg or png", field: "format")
            }
            return chosen
        }
        guard let accept else { return .jpeg }
        return quality(of: "image/png", in: accept) > quality(of: "image/jpeg", in: accept) ? .png : .jpeg
    }

    /// The quality value `accept` gives `mediaType` (`type/subtype`, lower case): that of the most
    /// specific range matching it (`type/subtype`, then `type/*`, then `*/*`), 1 when the range
    /// has no `q`; 0 when no range matches (RFC 9110 section 12.5.1).
    public static func quality(of mediaType: String, in accept: String) -> Double {
        let type = mediaType.split(separator: "/").first.map(String.init) ?? mediaType
        var best: (specificity: Int, quality: Double)?
        for element in accept.split(separator: ",") {
            let parts = element.split(separator: ";")
            guard let range = parts.first.map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }), !range.isEmpty
            else { continue }
            let specificity: Int
            switch range {
            case mediaType: specificity = 2
            case type + "/*": specificity = 1
            case "*/*": specificity = 0
            default: continue
            }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map {
                    $0.trimmingCharacters(in: .whitespaces).lowercased()
                }
                if pair.count == 2, pair[0] == "q", let value = Double(pair[1]), value.isFinite {
                    quality = min(1, max(0, value))
                }
            }
            if let best, best.specificity >= specificity { continue }
            best = (specificity, quality)
        }
        return best?.quality ?? 0
    }
}
