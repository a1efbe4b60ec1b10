import Contract

extension Civic {
    /// A bill the caller bookmarked.
    public struct Bookmark: Codable, Sendable, Equatable {
        public var billId: String
        /// RFC 3339.
        public var createdAt: String
        public var bill: BillSummary
        public init(billId: String, createdAt: String, bill: BillSummary) {
            self.billId = billId
            self.createdAt = createdAt
            self.bill = bill
        }
    }

    /// Which bookmark: the caller's, of `billId`.
    public struct BookmarkRef: Codable, Sendable, Equatable {
        public var billId: String
        public init(billId: String) { self.billId = billId }
    }

    /// `get_bookmark`: the caller's bookmark of a bill (not found when there is none).
    public enum GetBookmark: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "get_bookmark"
        public typealias Request = BookmarkRef
        public typealias Reply = Bookmark
    }

    /// `put_bookmark`: bookmark a bill (again: nothing changes).
    public enum PutBookmark: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "put_bookmark"
        public typealias Request = BookmarkRef
        /// The bookmark; `created` when it is new (201), else the first one (200).
        public typealias Reply = Outcome<Bookmark>
    }

    /// `delete_bookmark`: remove it (not found when there is none).
    public enum DeleteBookmark: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "delete_bookmark"
        public typealias Request = BookmarkRef
        public typealias Reply = Empty
    }

    /// `list_bookmarks`: the caller's bookmarks, newest first.
    public enum ListBookmarks: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "list_bookmarks"
        public static let pageSize = PageSize(default: 50, max: 200)
        public typealias Request = PageRequest
        public typealias Reply = Page<Bookmark>
    }
}
