import Contract

extension Social {
    /// A friend request, seen by its sender (`outgoing`) or its addressee (`incoming`).
    public struct FriendRequest: Codable, Sendable, Equatable, Hashable {
        /// The other person.
        public var user: Person
        /// Milliseconds since the epoch.
        public var createdAt: Int64
        public init(user: Person, createdAt: Int64) {
            self.user = user
            self.createdAt = createdAt
        }
    }

    /// What sending, accepting or answering left between the two users.
    public struct RelationReply: Codable, Sendable, Equatable {
        public var userId: String
        public var relation: Relation
        public init(userId: String, relation: Relation) {
            self.userId = userId
            self.relation = relation
        }
    }

    /// `send_friend_request`: asks `userId` to be friends. Sending it again is the same request;
    /// to someone who already asked the caller, it accepts theirs (both are friends at once).
    public enum SendFriendRequest: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "send_friend_request"
        public typealias Request = UserRef
        public typealias Reply = RelationReply
    }

    /// Which friend requests to list.
    public enum Direction: String, Codable, Sendable, CaseIterable {
        case incoming, outgoing
    }

    /// `list_friend_requests`: incoming or outgoing, newest first, by keyset pages.
    public enum ListFriendRequests: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "list_friend_requests"
        public static let pageSize = PageSize(default: 50, max: 200)
        public struct Request: Codable, Sendable, Equatable {
            public var direction: Direction
            public var limit: Int?
            public var cursor: String?
            public init(direction: Direction, limit: Int? = nil, cursor: String? = nil) {
                self.direction = direction
                self.limit = limit
                self.cursor = cursor
            }

            // The API's `direction` may be left out: the caller's incoming requests.
            public init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                direction = try container.decodeIfPresent(Direction.self, forKey: .direction) ?? .incoming
                limit = try container.decodeIfPresent(Int.self, forKey: .limit)
                cursor = try container.decodeIfPresent(String.self, forKey: .cursor)
            }
        }
        public typealias Reply = Page<FriendRequest>
    }

    /// `accept_friend_request`: accepts the request `userId` sent the caller; `not_found` if none.
    public enum AcceptFriendRequest: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "accept_friend_request"
        public typealias Request = UserRef
        public typealias Reply = RelationReply
    }

    /// `decline_friend_request`: drops the request `userId` sent the caller (they are not told).
    public enum DeclineFriendRequest: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "decline_friend_request"
        public typealias Request = UserRef
        public typealias Reply = Empty
    }

    /// `cancel_friend_request`: withdraws the caller's request to `userId`.
    public enum CancelFriendRequest: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "cancel_friend_request"
        public typealias Request = UserRef
        public typealias Reply = Empty
    }

    /// A friend, and since when (milliseconds since the epoch).
    public struct Friend: Codable, Sendable, Equatable, Hashable {
        public var user: Person
        public var since: Int64
        public init(user: Person, since: Int64) {
            self.user = user
            self.since = since
        }
    }

    /// `list_friends`: the caller's friends, newest friendship first, by keyset pages.
    public enum ListFriends: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "list_friends"
        public static let pageSize = PageSize(default: 50, max: 200)
        public typealias Request = PageRequest
        public typealias Reply = Page<Friend>
    }

    /// `remove_friend`: ends the friendship both ways; `not_found` when there is none.
    public enum RemoveFriend: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "remove_friend"
        public typealias Request = UserRef
        public typealias Reply = Empty
    }

    /// `block_user`: ends any friendship and pending request between the two, and hides each
    /// from the other until unblocked. Blocking twice is blocking once.
    public enum BlockUser: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "block_user"
        public typealias Request = UserRef
        public typealias Reply = Empty
    }

    /// `unblock_user`: lifts the caller's block of `userId` (no friendship comes back).
    public enum UnblockUser: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "unblock_user"
        public typealias Request = UserRef
        public typealias Reply = Empty
    }

    /// The event topics social writes to the event log.
    public enum Topic {
        /// ``FriendRequested``: notify tells the addressee.
        public static let friendRequested = "social.friend_requested"
        /// ``FriendAccepted``: notify tells the one who asked.
        public static let friendAccepted = "social.friend_accepted"
        /// ``RelationChanged``: every other change (declined, canceled, removed, blocked, unblocked).
        public static let relationChanged = "social.relation_changed"
    }

    /// Event `social.friend_requested`: `userId` was asked by `fromUserId`.
    public struct FriendRequested: Codable, Sendable, Equatable {
        /// The addressee (whom notify tells).
        public var userId: String
        public var fromUserId: String
        /// The sender's display name, or username.
        public var fromName: String
        public init(userId: String, fromUserId: String, fromName: String) {
            self.userId = userId
            self.fromUserId = fromUserId
            self.fromName = fromName
        }
    }

    /// Event `social.friend_accepted`: `byUserId` accepted the request of `userId`.
    public struct FriendAccepted: Codable, Sendable, Equatable {
        /// The one who asked (whom notify tells).
        public var userId: String
        public var byUserId: String
        public var byName: String
        public init(userId: String, byUserId: String, byName: String) {
            self.userId = userId
            self.byUserId = byUserId
            self.byName = byName
        }
    }

    /// Event `social.relation_changed`: `userId` did `change` to `otherUserId`.
    public struct RelationChanged: Codable, Sendable, Equatable {
        public var userId: String
        public var otherUserId: String
        /// `declined`, `canceled`, `removed`, `blocked` or `unblocked`.
        public var change: String
        public init(userId: String, otherUserId: String, change: String) {
            self.userId = userId
            self.otherUserId = otherUserId
            self.change = change
        }
    }
}
