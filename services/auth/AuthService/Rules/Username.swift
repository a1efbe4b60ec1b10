import Contract
import Foundation

/// A username as stored and compared: trimmed and lower-cased, so `Ann@Example.org ` and
/// `ann@example.org` are the same account. An e-mail address is the preferred form and is
/// validated when the name looks like one (contains `@`).
public struct Username: Hashable, Sendable, CustomStringConvertible {
    /// The canonical form.
    public let value: String
    /// Whether it is an e-mail address.
    public let isEmail: Bool

    /// Normalises and validates `raw`; `invalid_argument` naming the problem otherwise.
    public init(_ raw: String, field: String = "username") throws(ServiceError) {
        let canonical = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        func refuse(_ why: String) -> ServiceError { .invalidArgument("\(field) \(why)", field: field) }
        guard !canonical.isEmpty else { throw refuse("is empty") }
        guard canonical.count <= 254 else { throw refuse("is longer than 254 characters") }
        if canonical.contains("@") {
            guard Self.isValidEmail(canonical) else {
                throw refuse("looks like an e-mail address but is not a valid one")
            }
            isEmail = true
        } else {
            guard canonical.count >= 3 else { throw refuse("must have at least 3 characters") }
            let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789._-")
            guard canonical.unicodeScalars.allSatisfy(allowed.contains) else {
                throw refuse("may contain only letters, digits, '.', '_' and '-' (or be an e-mail address)")
            }
            isEmail = false
        }
        value = canonical
    }

    public var description: String { value }

    /// A pragmatic check: one `@`, a non-empty local part without spaces, and a domain of
    /// dot-separated labels of letters, digits and hyphens, with a top-level label of 2+ letters.
    static func isValidEmail(_ address: String) -> Bool {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, let domain = parts.last,
            (1...64).contains(local.count), !local.contains(where: \.isWhitespace),
            !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..")
        else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, let top = labels.last, top.count >= 2, top.allSatisfy(\.isLetter) else { return false }
        let labelCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789-")
        return labels.allSatisfy { label in
            (1...63).contains(label.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.unicodeScalars.allSatisfy(labelCharacters.contains)
        }
    }
}
