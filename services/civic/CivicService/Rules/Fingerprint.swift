import Crypto
import Foundation

/// A short, stable hash of a value's JSON (keys sorted): equal content, equal fingerprint. The
/// importer keeps one per field of a bill and compares them to tell what a feed update changed.
public enum Fingerprint {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// 16 hex digits of the SHA-256 of `value`'s sorted-key JSON.
    public static func of(_ value: some Encodable) -> String {
        let data = (try? encoder.encode(value)) ?? Data()
        return SHA256.hash(data: data).prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
