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

    /// How long a client may reuse a private, tagged reply without asking: not at all, but it
    /// may keep it and ask with `If-None-Match` (a 304 costs no body).
    static let privateCacheControl = "private, no-cache"

    /// Where a pass-through reply's tag comes from.
    enum Source: Sendable {
        /// No tag.
        case none
        /// The reply's top-level `etag` member, which the service made (a versioned resource,
        /// whose `If-Match` the service checks).
        case member
        /// The SHA-256 of the reply's bytes (a list).
        case content
    }

    /// The tag of the pass-through `reply` as `source` says; nil for none, or when the reply has no tag member.
    init?(_ reply: [UInt8], from source: Source) {
        switch source {
        case .none:
            return nil
        case .member:
            struct Tagged: Decodable { let etag: String }
            guard let tagged = try? JSONDecoder().decode(Tagged.self, from: Data(reply)) else { return nil }
            value = tagged.etag
        case .content:
            value = Self.quoted(SHA256.hash(data: reply))
        }
    }

    /// `"…"` around the first 16 bytes of `digest` in lower-case hex (every pass-through read
    /// that is tagged makes one, so no `String(format:)` per byte).
    static func quoted(_ digest: SHA256.Digest) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [UInt8(ascii: "\"")]
        text.reserveCapacity(34)
        for byte in digest.prefix(16) {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0f)])
        }
        text.append(UInt8(ascii: "\""))
        return String(decoding: text, as: UTF8.self)
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
