import Contract
import Foundation
import NotifyContract

/// A request to notify someone, checked: the kind exists, its variables are there, there is a
/// recipient.
public struct Submission: Sendable, Equatable {
    /// The notification id (idempotency key).
    public var id: UUID
    /// The recipient account.
    public var userId: UUID?
    /// An address that overrides the account's.
    public var email: String?
    /// The kind.
    public var kind: Notify.Kind
    /// The requested locale, if any.
    public var locale: String?
    /// The template variables.
    public var variables: [String: String]
    /// One device addressed without an account (push only).
    public var device: Notify.PushDevice?
    /// E-mail and push are not sent at or after this moment (see ``Notify/Send/Request/notAfter``).
    public var notAfter: Date?

    /// Checks a request.
    public init(
        id: UUID, userId: UUID?, email: String?, kind: Notify.Kind, locale: String? = nil, variables: [String: String],
        device: Notify.PushDevice? = nil, notAfter: Date? = nil
    ) throws(ServiceError) {
        let known = try NotificationCatalog.kind(kind)
        try known.check(variables)
        if let device {
            guard userId == nil, email == nil else {
                throw ServiceError.invalidArgument("a device is addressed without a userId or an email", field: "device")
            }
            guard known.channels.contains(Notify.Channel.push) else {
                throw ServiceError.invalidArgument("kind \(kind) is not pushed", field: "device")
            }
            guard ["ios", "android", "web"].contains(device.platform) else {
                throw ServiceError.invalidArgument("device.platform must be ios, android or web", field: "device.platform")
            }
            guard !device.token.isEmpty, device.token.count <= 4096, !device.deviceId.isEmpty else {
                throw ServiceError.invalidArgument("device needs a token and a deviceId", field: "device.token")
            }
            guard device.apnsEnvironment == nil || ["production", "sandbox"].contains(device.apnsEnvironment!) else {
                throw ServiceError.invalidArgument(
                    "device.apnsEnvironment must be production or sandbox", field: "device.apnsEnvironment")
            }
        } else {
            guard userId != nil || email != nil else {
                throw ServiceError.invalidArgument("give a userId, an email, or both", field: "userId")
            }
        }
        if let email, !(email.contains("@") && email.count <= 254 && !email.contains(where: \.isWhitespace)) {
            throw ServiceError.invalidArgument("email must be an e-mail address", field: "email")
        }
        self.id = id
        self.userId = userId
        self.email = email
        self.kind = kind
        self.locale = locale
        self.variables = variables
        self.device = device
        self.notAfter = notAfter
    }

    /// From the wire request.
    public init(_ request: Notify.Send.Request) throws(ServiceError) {
        guard let id = UUID(uuidString: request.notificationId) else {
            throw ServiceError.invalidArgument("notificationId must be a UUID", field: "notificationId")
        }
        var userId: UUID?
        if let text = request.userId {
            guard let parsed = UUID(uuidString: text) else {
                throw ServiceError.invalidArgument("userId must be a UUID", field: "userId")
            }
            userId = parsed
        }
        try self.init(
            id: id, userId: userId, email: request.email, kind: request.kind, locale: request.locale,
            variables: request.variables, device: request.device, notAfter: request.notAfter)
    }

    /// A digest of everything but the id, to tell a repeat from a different request with the
    /// same id.
    public var contentHash: String {
        let vars = variables.keys.sorted().map { "\($0)=\(variables[$0]!)" }.joined(separator: "\u{1F}")
        var parts = [userId?.uuidString ?? "", email ?? "", kind.rawValue, locale ?? "", vars]
        if let device {
            parts.append(
                [device.deviceId, device.token, device.platform, device.app ?? "", device.apnsEnvironment ?? ""]
                    .joined(separator: "\u{1F}"))
        }
        // Only when set, so the hashes of notifications stored before it existed stay the same.
        if let notAfter { parts.append("notAfter=\(Int64((notAfter.timeIntervalSince1970 * 1000).rounded()))") }
        return DerivedID.hash(parts.joined(separator: "\u{1E}"))
    }
}
