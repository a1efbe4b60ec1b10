import AuthContract
import Contract
import Crypto
import Foundation

/// What the directory keeps of an account: names to search, and digests (never the values) of
/// the e-mail addresses and phone number it can be found by exactly.
public struct DirectoryEntry: Sendable, Equatable {
    public let userId: UUID
    public let username: String
    public let displayName: String?
    /// What name search matches: the display name, and the username unless it is an e-mail
    /// address (an address is never matched by prefix or similarity).
    public let nameText: String
    /// SHA-256 (hex) of each e-mail address, lower case: the account's e-mail and a username that is one.
    public let emailDigests: [String]
    /// SHA-256 (hex) of the E.164 phone number.
    public let phoneDigest: String?

    /// The entry for `profile`; nil when its user id is not a UUID.
    public init?(_ profile: Auth.ProfileChanged) {
        guard let id = UUID(uuidString: profile.userId) else { return nil }
        userId = id
        username = profile.username
        displayName = profile.displayName
        let usernameIsEmail = Self.looksLikeEmail(profile.username)
        nameText = [profile.displayName, usernameIsEmail ? nil : profile.username].compactMap { $0 }
            .joined(separator: " ").lowercased()
        var emails: [String] = []
        if let email = profile.email { emails.append(email) }
        if usernameIsEmail { emails.append(profile.username) }
        emailDigests = Array(Set(emails.map { Self.emailDigest($0) })).sorted()
        phoneDigest = profile.phone.map(Self.phoneDigest)
    }

    /// Whether `text` is written as an e-mail address (something@domain.tld).
    public static func looksLikeEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
    }

    /// Whether `text` is an E.164 phone number (+ and 8 to 15 digits).
    public static func looksLikePhone(_ text: String) -> Bool {
        text.first == "+" && (9...16).contains(text.count) && text.dropFirst().allSatisfy(\.isASCII)
            && text.dropFirst().allSatisfy(\.isNumber)
    }

    /// The digest (SHA-256, hex) an e-mail address is kept and looked up by.
    public static func emailDigest(_ email: String) -> String {
        SHA256.hash(data: Data(email.trimmingCharacters(in: .whitespaces).lowercased().utf8)).lowercaseHex
    }

    /// The digest (SHA-256, hex) a phone number is kept and looked up by.
    public static func phoneDigest(_ phone: String) -> String {
        SHA256.hash(data: Data(phone.trimmingCharacters(in: .whitespaces).utf8)).lowercaseHex
    }
}
