import CivicContract
import Contract
import Crypto
import Foundation

/// The checks of a subscription's fields, its secret, and the rule that folds many new bills
/// into one summary push (no I/O, no clock).
public enum SubscriptionRules {
    public static let platforms = ["ios", "android", "web"]
    public static let maxJurisdictions = 20
    public static let maxSubjects = 50

    /// A push token as given, checked (not logged, not echoed in the message).
    public static func token(_ token: String) throws(ServiceError) -> String {
        guard !token.isEmpty, token.unicodeScalars.count <= 4096,
            !token.unicodeScalars.contains(where: { $0.properties.isWhitespace })
        else { throw ServiceError.invalidArgument("deviceToken must be 1-4096 characters without spaces", field: "deviceToken") }
        return token
    }

    public static func platform(_ platform: String) throws(ServiceError) -> String {
        guard platforms.contains(platform) else {
            throw ServiceError.invalidArgument("platform must be ios, android or web", field: "platform")
        }
        return platform
    }

    public static func app(_ app: String) throws(ServiceError) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_-.")
        guard (1...64).contains(app.count), app.allSatisfy({ allowed.contains($0) }) else {
            throw ServiceError.invalidArgument("app must be 1-64 of a-z, 0-9, '_', '-', '.'", field: "app")
        }
        return app
    }

    public static func apnsEnvironment(_ value: String?) throws(ServiceError) -> String {
        guard let value else { return "production" }
        guard value == "production" || value == "sandbox" else {
            throw ServiceError.invalidArgument("apnsEnvironment must be production or sandbox", field: "apnsEnvironment")
        }
        return value
    }

    /// The filter checked: 1-20 Open Civic Data jurisdiction ids, 0-50 subjects; repeats dropped.
    public static func filter(jurisdictions: [String], subjects: [String]) throws(ServiceError)
        -> Civic.SubscriptionFilter
    {
        var seen = Set<String>()
        let ids = jurisdictions.filter { seen.insert($0).inserted }
        guard (1...maxJurisdictions).contains(ids.count) else {
            throw ServiceError.invalidArgument(
                "jurisdictions must name 1-\(maxJurisdictions) jurisdictions", field: "jurisdictions")
        }
        let prefix = "ocd-jurisdiction/".unicodeScalars
        for id in ids where !(id.unicodeScalars.starts(with: prefix) && id.unicodeScalars.count <= 200) {
            throw ServiceError.invalidArgument(
                "jurisdictions must be Open Civic Data ids (ocd-jurisdiction/...)", field: "jurisdictions")
        }
        seen = []
        guard subjects.count <= maxSubjects, subjects.allSatisfy({ (1...100).contains($0.unicodeScalars.count) }) else {
            throw ServiceError.invalidArgument(
                "subjects must be at most \(maxSubjects) subjects of 1-100 characters", field: "subjects")
        }
        let topics = subjects.filter { seen.insert($0.lowercased()).inserted }
        return .init(jurisdictions: ids, subjects: topics)
    }

    /// A new secret: 32 random bytes, base64url.
    public static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// What is stored of a secret.
    public static func hash(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// A UUID derived from `parts` (the SHA-256 of them, shaped as a version 5 style UUID): the
    /// same parts, the same id, in every replica and every retry.
    public static func derivedID(_ parts: String...) -> UUID {
        var bytes = Array(SHA256.hash(data: Data(parts.joined(separator: "\u{1F}").utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}

/// How the new bills owed to one device become pushes: one push per bill, but more than
/// ``singlesPerHour`` new bills for a device within an hour become one summary push.
public enum PushBatching {
    /// Single-bill pushes a device gets within ``window`` before bills are summarised.
    public static let singlesPerHour = 3
    /// The hour.
    public static let window: TimeInterval = 3600

    public enum Decision: Equatable, Sendable {
        /// One push per pending bill.
        case singles
        /// One push for all the pending bills.
        case summary
        /// Nothing yet: a summary went out within the hour; the bills wait until it is an hour old.
        case wait
    }

    /// The decision for `pending` bills owed to a device that was sent `recentSingles` single
    /// pushes within the last hour, and a summary within the last hour or not.
    public static func decide(pending: Int, recentSingles: Int, summaryWithinHour: Bool) -> Decision {
        if summaryWithinHour { return .wait }
        return recentSingles + pending <= singlesPerHour ? .singles : .summary
    }

    /// A summary's title and body: how many bills, and the first identifiers.
    public static func summary(identifiers: [String]) -> (title: String, body: String) {
        let shown = identifiers.prefix(3).joined(separator: ", ")
        let more = identifiers.count > 3 ? " and \(identifiers.count - 3) more" : ""
        return ("\(identifiers.count) new bills", "\(shown)\(more)")
    }

    /// A single bill's `title` variable: its identifier and title, at most 200 characters.
    public static func single(identifier: String, title: String) -> String {
        let text = "\(identifier): \(title)"
        return text.count <= 200 ? text : String(text.prefix(199)) + "…"
    }
}
