import Contract
import Foundation
import ServiceKit
import SocialContract
import Store

/// Favourites: the caller's wish list, and a friend's.
public struct WishListHandler: Sendable {
    let favourites: FavouriteStore
    let friends: FriendStore
    let catalog: any CatalogProvider
    let clock: any WallClock

    public init(favourites: FavouriteStore, friends: FriendStore, catalog: any CatalogProvider, clock: any WallClock) {
        self.favourites = favourites
        self.friends = friends
        self.catalog = catalog
        self.clock = clock
    }

    /// `add_favourite`.
    public func add(_ request: Social.AddFavourite.Request, _ context: OperationContext) async throws
        -> Social.AddFavourite.Reply
    {
        let me = try context.userId()
        guard (1...100).contains(request.itemId.unicodeScalars.count) else {
            throw ServiceError.invalidArgument("itemId is 1 to 100 characters", field: "itemId")
        }
        if let note = request.note, note.unicodeScalars.count > Social.AddFavourite.maxNote {
            throw ServiceError.invalidArgument(
                "note is at most \(Social.AddFavourite.maxNote) characters", field: "note")
        }
        guard let item = try await catalog.item(request.itemId) else {
            throw ServiceError(.notFound, "no catalogue item \(request.itemId)", details: ["field": "itemId"])
        }
        let (row, created) = try await favourites.add(item, note: request.note, for: me, now: clock.now())
        var favourite = row.favourite
        favourite.available = item.available
        return .init(favourite, created: created)
    }

    /// `list_favourites`.
    public func list(_ request: PageRequest, _ context: OperationContext) async throws -> Page<Social.Favourite> {
        try await page(of: try context.userId(), limit: request.limit, cursor: request.cursor)
    }

    /// `remove_favourite`.
    public func remove(_ request: Social.RemoveFavourite.Request, _ context: OperationContext) async throws -> Empty {
        guard try await favourites.remove(request.itemId, of: try context.userId()) else {
            throw ServiceError.notFound("\(request.itemId) is not on your list")
        }
        return Empty()
    }

    /// `friend_favourites`: `not_found` alike for a stranger and for nobody.
    public func friendList(_ request: Social.FriendFavourites.Request, _ context: OperationContext) async throws
        -> Page<Social.Favourite>
    {
        let me = try context.userId()
        guard let friend = UUID(uuidString: request.userId) else {
            throw ServiceError.invalidArgument("userId must be a UUID", field: "userId")
        }
        guard friend != me, try await friends.areFriends(me, friend) else {
            throw ServiceError.notFound("no list of this user's that you may see")
        }
        return try await page(of: friend, limit: request.limit, cursor: request.cursor)
    }

    /// One page of `user`'s list, each item refreshed from the catalogue (as added, and
    /// unavailable, when the catalogue no longer has it).
    func page(of user: UUID, limit requested: Int?, cursor: String?) async throws -> Page<Social.Favourite> {
        let limit = try Social.ListFavourites.pageSize.limit(requested)
        let rows = try await favourites.list(of: user, after: try KeysetCursor.parse(cursor), limit: limit + 1)
        let kept = Array(rows.prefix(limit))
        let current = try await catalog.items(kept.map(\.favourite.itemId))
        let items = kept.map { row -> Social.Favourite in
            var favourite = row.favourite
            if let item = current[favourite.itemId] {
                favourite.title = item.title
                favourite.imageUrl = item.imageUrl
                favourite.price = item.price
                favourite.available = item.available
            } else {
                favourite.available = false
            }
            return favourite
        }
        let next = rows.count > limit ? kept.last.map { KeysetCursor.text(micros: $0.micros, id: $0.id.uuidString) } : nil
        return Page(items: items, nextCursor: next)
    }
}
