import Contract

extension ServiceName {
    /// Gifter's people (friends, requests, blocks), the product catalogue and gift checks.
    public static let social = ServiceName("social")
}

/// Operations of the `social` service (Gifter): friend requests and friends, blocking, the
/// product catalogue, and what orders asks before it charges a gift.
public enum Social {
    /// How the caller stands with another user.
    public enum Relation: String, Codable, Sendable, CaseIterable {
        /// Nothing between them.
        case none
        /// The caller asked; the other has not answered.
        case requested
        /// The other asked the caller.
        case incoming
        /// Friends (symmetric).
        case friends
    }

    /// Another user as the caller may see them: never an e-mail address or phone number.
    public struct Person: Codable, Sendable, Equatable, Hashable {
        public var userId: String
        public var username: String
        public var displayName: String?
        public var relation: Relation
        public init(userId: String, username: String, displayName: String?, relation: Relation) {
            self.userId = userId
            self.username = username
            self.displayName = displayName
            self.relation = relation
        }
    }

    /// A request that names another user.
    public struct UserRef: Codable, Sendable, Equatable, Hashable {
        public var userId: String
        public init(userId: String) { self.userId = userId }
    }
}
