import Contract

extension Social {
    /// `search_users`: the directory. `q` is a name (display names and usernames that are not
    /// e-mail addresses, by prefix and by similarity, typos allowed), or an exact e-mail address
    /// or E.164 phone number. An address or number is only ever matched whole, and results
    /// never show one. Users who opted out of the kind of search, blocked users (either way)
    /// and the caller are left out.
    public enum SearchUsers: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "search_users"
        public static let pageSize = PageSize(default: 20, max: 50)
        public struct Request: Codable, Sendable, Equatable {
            public var q: String
            public var limit: Int?
            public var cursor: String?
            public init(q: String, limit: Int? = nil, cursor: String? = nil) {
                self.q = q
                self.limit = limit
                self.cursor = cursor
            }
        }
        public typealias Reply = Page<Person>
    }

    /// Who may find the caller in the directory. Both are on until the user turns them off.
    public struct Privacy: Codable, Sendable, Equatable {
        /// Found by someone who types the caller's exact e-mail address or phone number.
        public var findableByContact: Bool
        /// Found by display name or username.
        public var findableByName: Bool
        public init(findableByContact: Bool, findableByName: Bool) {
            self.findableByContact = findableByContact
            self.findableByName = findableByName
        }
    }

    /// `get_privacy`: the caller's directory settings.
    public enum GetPrivacy: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "get_privacy"
        public typealias Request = Empty
        public typealias Reply = Privacy
    }

    /// `set_privacy`: replaces the caller's directory settings.
    public enum SetPrivacy: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "set_privacy"
        public typealias Request = Privacy
        public typealias Reply = Privacy
    }
}
