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

    /// Creates metadata.
    public init(requestId: String, traceparent: String? = nil, actor: Actor? = nil, deadline: Int64? = nil) {
        self.requestId = requestId
        self.traceparent = traceparent
        self.actor = actor
        self.deadline = deadline
    }
}

/// An authenticated user and their roles.
public struct Actor: Codable, Hashable, Sendable {
    /// The user's id.
    public var userId: String
    /// `user`, `admin`, `rewards_manager`, `printer`.
    public var roles: [String]

    /// Creates an actor.
    public init(userId: String, roles: [String]) {
        self.userId = userId
        self.roles = roles
    }

    /// Whether the actor holds `role` (an `admin` holds every role).
    public func has(_ role: String) -> Bool { roles.contains(role) || roles.contains("admin") }
}
