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
    public var kind: String
    /// The requested locale, if any.
    public var locale: String?
    /// The template variables.
    public var variables: [String: String]

    /// Checks a request.
    public init(
        id: UUID, userId: UUID?, email: String?, kind: String, locale: String? = nil, variables: [String: String]
    ) throws(ServiceError) {
        let known = try NotificationCatalog.kind(kind)
        try known.check(variables)
        guard userId != nil || email != nil else {
            throw ServiceError.invalidArgument("give a userId, an email, or both", field: "userId")
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
            variables: request.variables)
    }

    /// A digest of everything but the id, to tell a repeat from a different request with the
    /// same id.
    public var contentHash: String {
        let vars = variables.keys.sorted().map { "\($0)=\(variables[$0]!)" }.joined(separator: "\u{1F}")
        return DerivedID.hash(
            [userId?.uuidString ?? "", email ?? "", kind, locale ?? "", vars].joined(separator: "\u{1E}"))
    }
}
