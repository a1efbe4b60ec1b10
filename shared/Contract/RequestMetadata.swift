/// Who is asking, for which request, until when: frame 2 of every request.
public struct RequestMetadata: Codable, Hashable, Sendable {
    /// The id of the HTTP request (or job) this call serves; on every log line about it.
    public var requestId: String
    /// W3C trace context, when the caller has one.
    public var traceparent: String?
    /// The authenticated caller, or `nil` for anonymous calls.
    public var actor: Actor?
    /// When the caller stops waiting, in milliseconds since the Unix epoch.
    public var deadline: Int64?
    /// The client's `Idempotency-Key` for a request that creates something (checked by the
    /// gateway with ``IdempotencyKey/validated(_:)``); a secret of the caller's, never logged.
    public var idempotencyKey: String?

    /// Creates metadata.
    public init(
        requestId: String, traceparent: String? = nil, actor: Actor? = nil, deadline: Int64? = nil,
        idempotencyKey: String? = nil
    ) {
        self.requestId = requestId
        self.traceparent = traceparent
        self.actor = actor
        self.deadline = deadline
        self.idempotencyKey = idempotencyKey
    }

    /// The idempotency key the caller sent; `invalid_argument` naming `Idempotency-Key` when it
    /// sent none.
    public func requireIdempotencyKey() throws(ServiceError) -> String {
        guard let idempotencyKey else {
            throw ServiceError.invalidArgument(IdempotencyKey.rule, field: IdempotencyKey.header)
        }
        return idempotencyKey
    }
}

/// The `Idempotency-Key` of requests that create something: what a usable one is.
public enum IdempotencyKey {
    /// The HTTP header that carries it.
    public static let header = "Idempotency-Key"
    /// What a client must send.
    public static let rule = "send an Idempotency-Key header of 1 to 255 visible ASCII characters (a UUID is best)"

    /// `key` when it is 1 to 255 visible ASCII characters; `invalid_argument` naming the header
    /// otherwise.
    public static func validated(_ key: String?) throws(ServiceError) -> String {
        guard let key, (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else {
            throw ServiceError.invalidArgument(rule, field: header)
        }
        return key
    }
}

/// An authenticated user and their roles.
public struct Actor: Codable, Hashable, Sendable {
    /// The user's id.
    public var userId: String
    /// The ``Role``s' raw values: `user`, `admin`, `rewards_manager`, `printer`, ...
    public var roles: [String]

    /// Creates an actor.
    public init(userId: String, roles: [String]) {
        self.userId = userId
        self.roles = roles
    }

    /// An actor holding `roles`.
    public init(userId: String, roles: [Role]) {
        self.init(userId: userId, roles: roles.map(\.rawValue))
    }

    /// Whether the actor holds `role` (an `admin` holds every role).
    public func has(_ role: Role) -> Bool {
        roles.contains(role.rawValue) || roles.contains(Role.admin.rawValue)
    }
}

/// A role an account can hold. Tokens and the wire carry the raw value; a role this build does
/// not know (a newer service's) is kept as it is, so the set is open.
public struct Role: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Every account.
    public static let user = Role(rawValue: "user")
    /// NavUP maintenance; holds every other role too.
    public static let admin = Role(rawValue: "admin")
    /// NavUP third-party rewards.
    public static let rewardsManager = Role(rawValue: "rewards_manager")
    /// PostcardBuddy's printer of postcards.
    public static let printer = Role(rawValue: "printer")
    /// A Wi-Fi controller's service account, which reports NavUP's per-access-point counts.
    public static let wifiController = Role(rawValue: "wifi_controller")
    /// PolitiMap's editors: they highlight bills for a level of government.
    public static let civicEditor = Role(rawValue: "civic_editor")
    /// The roles auth grants, in this order.
    public static let all: [Role] = [user, admin, rewardsManager, printer, wifiController, civicEditor]

    public var description: String { rawValue }
}
