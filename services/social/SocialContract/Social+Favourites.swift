import CommonContract
import Contract

extension Social {
    /// An item on a wish list: as the catalogue has it now when it still has it, else as it was
    /// when added (`available` false then).
    public struct Favourite: Codable, Sendable, Equatable, Hashable {
        public var itemId: String
        public var title: String
        public var imageUrl: String
        public var price: Money
        public var available: Bool
        public var note: String?
        /// Milliseconds since the epoch.
        public var addedAt: Int64
        public init(
            itemId: String, title: String, imageUrl: String, price: Money, available: Bool, note: String?,
            addedAt: Int64
        ) {
            self.itemId = itemId
            self.title = title
            self.imageUrl = imageUrl
            self.price = price
            self.available = available
            self.note = note
            self.addedAt = addedAt
        }
    }

    /// `add_favourite`: puts a catalogue item on the caller's list (again: the note is replaced).
    public enum AddFavourite: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "add_favourite"
        /// The longest note.
        public static let maxNote = 500
        public struct Request: Codable, Sendable, Equatable {
            public var itemId: String
            public var note: String?
            public init(itemId: String, note: String? = nil) {
                self.itemId = itemId
                self.note = note
            }
        }
        /// The favourite; `created` when the item is new on the list (201), else it was there
        /// already and only its note changed (200).
        public typealias Reply = Outcome<Favourite>
    }

    /// `list_favourites`: the caller's list, newest first, by keyset pages.
    public enum ListFavourites: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "list_favourites"
        public static let pageSize = PageSize(default: 50, max: 200)
        public typealias Request = PageRequest
        public typealias Reply = Page<Favourite>
    }

    /// `remove_favourite`: takes an item off the caller's list; `not_found` when it is not there.
    public enum RemoveFavourite: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "remove_favourite"
        public struct Request: Codable, Sendable, Equatable {
            public var itemId: String
            public init(itemId: String) { self.itemId = itemId }
        }
        public typealias Reply = Empty
    }

    /// `friend_favourites`: a friend's list; `not_found` unless the two are friends.
    public enum FriendFavourites: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "friend_favourites"
        public struct Request: Codable, Sendable, Equatable {
            public var userId: String
            public var limit: Int?
            public var cursor: String?
            public init(userId: String, limit: Int? = nil, cursor: String? = nil) {
                self.userId = userId
                self.limit = limit
                self.cursor = cursor
            }
        }
        public typealias Reply = Page<Favourite>
    }
}
