import Contract
import Crypto
import Foundation

/// Deterministic notification ids: the same trigger (an event and a recipient, a schedule and an
/// occurrence) always yields the same id, so that handling it twice sends once.
public enum DerivedID {
    /// A version-5-style UUID from the SHA-256 of `parts` joined by `|`.
    public static func make(_ parts: String...) -> UUID {
        var bytes = Array(Crypto.SHA256.hash(data: Array(parts.joined(separator: "|").utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// The lower-case hex SHA-256 of `text`.
    public static func hash(_ text: String) -> String {
        Crypto.SHA256.hash(data: Array(text.utf8)).lowercaseHex
    }
}
