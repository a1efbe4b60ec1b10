import AuthContract
import Contract
import Foundation
import PostgresNIO
import SocialContract
import Testing

@Suite("social: favourites (PostgreSQL)")
struct FavouriteTests {
    /// Two available catalogue items.
    static func items(_ db: SocialDatabase, as user: UUID) async throws -> [Social.CatalogItem] {
        let page = try await db.call(Social.SearchCatalog.self, .init(q: "lantern", limit: 20), as: user)
        return Array(page.items.filter(\.available).prefix(3))
    }

    @Test("add, list newest first with the note, add again (the note replaced), remove; 404s and 400s")
    func addListRemove() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            let items = try await Self.items(db, as: ann)
            let first = try await db.call(Social.AddFavourite.self, .init(itemId: items[0].id, note: "for Bo"), as: ann)
            #expect(first.created && first.body.title == items[0].title && first.body.price == items[0].price)
            db.clock.advance(by: 1)
            _ = try await db.call(Social.AddFavourite.self, .init(itemId: items[1].id), as: ann)
            let again = try await db.call(Social.AddFavourite.self, .init(itemId: items[0].id, note: "for Cy"), as: ann)
            #expect(!again.created && again.body.note == "for Cy")
            let list = try await db.call(Social.ListFavourites.self, .init(), as: ann)
            #expect(list.items.map(\.itemId) == [items[1].id, items[0].id])
            #expect(list.items.last?.note == "for Cy" && list.items.allSatisfy(\.available))
            _ = try await db.call(Social.RemoveFavourite.self, .init(itemId: items[1].id), as: ann)
            #expect(try await db.call(Social.ListFavourites.self, .init(), as: ann).items.map(\.itemId) == [items[0].id])
            #expect(await db.error(Social.RemoveFavourite.self, .init(itemId: items[1].id), as: ann)?.code == .notFound)
            let unknown = await db.error(Social.AddFavourite.self, .init(itemId: UUID().uuidString), as: ann)
            #expect(unknown?.code == .notFound && unknown?.field == "itemId")
            let long = await db.error(
                Social.AddFavourite.self, .init(itemId: items[0].id, note: String(repeating: "x", count: 501)), as: ann)
            #expect(long?.field == "note")
        }
    }

    @Test("listed items are refreshed from the catalogue: a new price and availability show")
    func refreshed() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            let item = try #require(try await Self.items(db, as: ann).first)
            _ = try await db.call(Social.AddFavourite.self, .init(itemId: item.id), as: ann)
            let id = try #require(UUID(uuidString: item.id))
            try await db.client.query(
                "UPDATE social.catalog_items SET price_amount = price_amount + 1, available = false WHERE id = \(id)",
                logger: SocialDatabase.logger)
            let listed = try await db.call(Social.ListFavourites.self, .init(), as: ann).items.first
            try await db.client.query(
                "UPDATE social.catalog_items SET price_amount = price_amount - 1, available = true WHERE id = \(id)",
                logger: SocialDatabase.logger)
            #expect(listed?.price.amount == item.price.amount + 1 && listed?.available == false)
        }
    }

    @Test("a friend's list is visible to friends only: 404 for a stranger, a former friend and a bad id")
    func friendsOnly() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            let bo = try await db.user()
            let cy = try await db.user()
            let item = try #require(try await Self.items(db, as: ann).first)
            _ = try await db.call(Social.AddFavourite.self, .init(itemId: item.id, note: "please"), as: bo)
            #expect(await db.error(Social.FriendFavourites.self, .init(userId: bo.uuidString), as: ann)?.code == .notFound)
            _ = try await db.call(Social.SendFriendRequest.self, bo.ref, as: ann)
            #expect(await db.error(Social.FriendFavourites.self, .init(userId: bo.uuidString), as: ann)?.code == .notFound)
            _ = try await db.call(Social.AcceptFriendRequest.self, ann.ref, as: bo)
            let list = try await db.call(Social.FriendFavourites.self, .init(userId: bo.uuidString), as: ann)
            #expect(list.items.map(\.itemId) == [item.id] && list.items.first?.note == "please")
            #expect(await db.error(Social.FriendFavourites.self, .init(userId: bo.uuidString), as: cy)?.code == .notFound)
            _ = try await db.call(Social.RemoveFriend.self, bo.ref, as: ann)
            #expect(await db.error(Social.FriendFavourites.self, .init(userId: bo.uuidString), as: ann)?.code == .notFound)
            #expect(await db.error(Social.FriendFavourites.self, .init(userId: "bo"), as: ann)?.field == "userId")
        }
    }

    @Test("pages of a long list: every item once; a deleted account's list goes with it")
    func pagingAndDeletion() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            let page = try await db.call(Social.SearchCatalog.self, .init(category: "music", limit: 25), as: ann)
            for item in page.items { _ = try await db.call(Social.AddFavourite.self, .init(itemId: item.id), as: ann) }
            var seen: [String] = []
            var cursor: String?
            repeat {
                let next = try await db.call(Social.ListFavourites.self, .init(cursor: cursor, limit: 7), as: ann)
                seen += next.items.map(\.itemId)
                cursor = next.nextCursor
            } while cursor != nil
            #expect(seen.count == 25 && Set(seen) == Set(page.items.map(\.id)))
            try await db.deliver(Auth.AccountDeleted.topic, Auth.AccountDeleted(userId: ann.uuidString.lowercased()))
            #expect(try await db.count("SELECT count(*) FROM social.favourites WHERE user_id = \(ann)") == 0)
        }
    }
}
