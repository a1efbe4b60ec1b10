/// A request for one page of a list: where to start and how many.
public struct PageRequest: Codable, Sendable, Hashable {
    /// The `nextCursor` of the previous page; nil for the first.
    public var cursor: String?
    /// How many items at most (the list's ``PageSize`` says the default and the bound).
    public var limit: Int?

    public init(cursor: String? = nil, limit: Int? = nil) {
        self.cursor = cursor
        self.limit = limit
    }
}

/// A request whose page is its `cursor` and `limit` members (the API's query parameters).
public protocol PagedRequest {
    var cursor: String? { get set }
    var limit: Int? { get set }
}

extension PagedRequest {
    /// The page asked for.
    public var page: PageRequest {
        get { PageRequest(cursor: cursor, limit: limit) }
        set {
            cursor = newValue.cursor
            limit = newValue.limit
        }
    }
}

/// How large a page of one list is when the request names no limit, and the most it may name.
public struct PageSize: Sendable, Hashable {
    public let defaultLimit: Int
    public let maxLimit: Int

    public init(default defaultLimit: Int, max maxLimit: Int) {
        precondition((1...maxLimit).contains(defaultLimit), "the default page size is within 1...max")
        self.defaultLimit = defaultLimit
        self.maxLimit = maxLimit
    }

    /// The limit to use for `requested`: the default when nil; `invalid_argument` naming `limit`
    /// outside 1 to ``maxLimit``.
    public func limit(_ requested: Int?) throws(ServiceError) -> Int {
        let limit = requested ?? defaultLimit
        guard (1...maxLimit).contains(limit) else {
            throw ServiceError.invalidArgument("limit is 1 to \(maxLimit)", field: "limit")
        }
        return limit
    }
}

/// One page of a list, `{"items": [...], "nextCursor": "..."}`; `nextCursor` is absent on the last.
public struct Page<Item: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public var items: [Item]
    /// Pass as `cursor` for the next page; nil on the last page.
    public var nextCursor: String?

    public init(items: [Item], nextCursor: String? = nil) {
        self.items = items
        self.nextCursor = nextCursor
    }

    /// The page made of `fetched`, which a store read with `limit + 1` rows: when the extra row
    /// came back there is a next page, starting after the last item kept (`cursorAfter` writes
    /// its cursor).
    public init(fetched: [Item], limit: Int, cursorAfter: (Item) -> String) {
        if fetched.count > limit {
            items = Array(fetched.prefix(limit))
            nextCursor = cursorAfter(items[limit - 1])
        } else {
            items = fetched
            nextCursor = nil
        }
    }
}

extension Page: Hashable where Item: Hashable {}
