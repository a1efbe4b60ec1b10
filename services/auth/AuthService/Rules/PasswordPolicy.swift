import Contract
import Foundation

/// Gifter's password rules (5.2.2.1): at least 8 characters, a digit and a capital letter, not one
/// of the most common passwords; up to 256 characters are accepted.
public struct PasswordPolicy: Sendable {
    /// One rule a password can break.
    public enum Rule: String, Sendable, CaseIterable {
        case tooShort = "too_short"
        case tooLong = "too_long"
        case missingDigit = "missing_digit"
        case missingCapital = "missing_capital"
        case tooCommon = "too_common"
    }

    /// Fewest characters allowed.
    public var minimumLength = 8
    /// Most characters allowed (at least 128 must be, so that passphrases and password managers fit).
    public var maximumLength = 256
    /// Passwords refused however they are capitalised, lower case.
    public let commonPasswords: Set<String>

    /// A policy refusing `commonPasswords`.
    public init(commonPasswords: Set<String>) {
        self.commonPasswords = commonPasswords
    }

    /// A policy refusing the passwords of a list of one password a line (`#` starts a comment
    /// line), however they are capitalised.
    public init(commonPasswordList text: String) {
        let lines = text.split(separator: "\n")
        self.init(commonPasswords: Set(lines.filter { !$0.hasPrefix("#") && !$0.isEmpty }.map { $0.lowercased() }))
    }

    /// Every rule `password` breaks, in a fixed order; empty when it is acceptable.
    public func violations(_ password: String) -> [Rule] {
        var broken: [Rule] = []
        if password.count < minimumLength { broken.append(.tooShort) }
        if password.count > maximumLength { broken.append(.tooLong) }
        if !password.unicodeScalars.contains(where: { CharacterSet.decimalDigits.contains($0) }) {
            broken.append(.missingDigit)
        }
        if !password.unicodeScalars.contains(where: { CharacterSet.uppercaseLetters.contains($0) }) {
            broken.append(.missingCapital)
        }
        if commonPasswords.contains(password.lowercased()) { broken.append(.tooCommon) }
        return broken
    }

    /// Throws `invalid_argument` naming every broken rule, in words and in `details.rules`.
    public func check(_ password: String, field: String = "password") throws(ServiceError) {
        let broken = violations(password)
        guard !broken.isEmpty else { return }
        let sentences = broken.map(description)
        throw ServiceError(
            .invalidArgument, "the password " + sentences.joined(separator: "; ") + ".",
            details: ["field": .string(field), "rules": .array(broken.map { .string($0.rawValue) })])
    }

    private func description(_ rule: Rule) -> String {
        switch rule {
        case .tooShort: "must have at least \(minimumLength) characters"
        case .tooLong: "must have at most \(maximumLength) characters"
        case .missingDigit: "must contain a digit"
        case .missingCapital: "must contain a capital letter"
        case .tooCommon: "is one of the most common passwords"
        }
    }
}
