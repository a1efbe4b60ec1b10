import Crypto
import Foundation

/// The version of a public, cacheable reply: a strong ETag made of the SHA-256 of its JSON
/// (keys sorted, so equal content has one tag), and the `If-None-Match` test that turns a
/// request for a copy the client already holds into a 304.
struct EntityTag: Sendable, Equatable {
    /// The quoted tag, e.g. `"3f2a…"` (32 hex digits).
    let value: String

    /// How long a client or shared cache may reuse a public civic reply without asking.
    static let publicCacheControl = "public, max-age=60"

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// The tag of `reply`.
    init(of reply: some Encodable) throws {
        let digest = SHA256.hash(data: try Self.encoder.encode(reply))
        value = "\"" + digest.prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
    }

    /// Whether `ifNoneMatch` (a list of tags, weak ones included, or `*`) names this tag.
    func isMatched(by ifNoneMatch: String?) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == value
        }
    }
}
