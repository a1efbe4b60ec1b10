import CivicContract
import Contract
import Foundation
import ServiceKit
import Store

/// The caller's bill bookmarks.
public struct BookmarkHandler: Sendable {
    let bookmarks: BookmarkStore
    let clock: any WallClock

    public init(bookmarks: BookmarkStore, clock: any WallClock) {
        self.bookmarks = bookmarks
        self.clock = clock
    }

    public func get(_ request: Civic.BookmarkRef, _ context: OperationContext) async throws -> Civic.Bookmark {
        let user = try context.userId()
        guard let bookmark = try await bookmarks.get(try BillQuery.id(request.billId, what: "bookmark"), for: user)
        else { throw ServiceError.notFound("you have not bookmarked bill \(request.billId)") }
        return bookmark
    }

    public func put(_ request: Civic.BookmarkRef, _ context: OperationContext) async throws
        -> Civic.PutBookmark.Reply
    {
        let user = try context.userId()
        let bill = try BillQuery.id(request.billId, what: "bill")
        guard let outcome = try await bookmarks.put(bill, for: user, now: clock.now()),
            let bookmark = try await bookmarks.get(bill, for: user)
        else { throw ServiceError.notFound("no bill \(request.billId)") }
        return .init(bookmark, created: outcome.created)
    }

    public func delete(_ request: Civic.BookmarkRef, _ context: OperationContext) async throws -> Empty {
        let user = try context.userId()
        guard try await bookmarks.delete(try BillQuery.id(request.billId, what: "bookmark"), for: user) else {
            throw ServiceError.notFound("you have not bookmarked bill \(request.billId)")
        }
        return Empty()
    }

    public func list(_ request: PageRequest, _ context: OperationContext) async throws -> Civic.ListBookmarks.Reply {
        let user = try context.userId()
        let limit = try Civic.ListBookmarks.pageSize.limit(request.limit)
        let fetched = try await bookmarks.list(for: user, after: try KeysetCursor.parse(request.cursor), limit: limit)
        let last = fetched.count > limit ? fetched[limit - 1] : nil
        return .init(
            items: fetched.prefix(limit).map(\.bookmark),
            nextCursor: last.map { KeysetCursor.text(at: $0.createdAt, id: $0.bookmark.billId) })
    }
}
