import Contract
import Foundation
import SocialContract
import Testing

@Suite("social: the sandbox catalogue (PostgreSQL)")
struct CatalogTests {
    @Test("20,000 products, the same on every machine (ids and prices derive from the product number)")
    func deterministic() async throws {
        try await SocialDatabase.with { db in
            #expect(try await db.count("SELECT count(*) FROM social.catalog_items") == 20_000)
            #expect(try await db.count("SELECT count(DISTINCT category) FROM social.catalog_items") == 10)
            let first = try await db.call(
                Social.GetCatalogItem.self, .init(id: "a67573fb-d6ee-5792-281e-711cf6ac07fb"), as: UUID())
            // md5('backplane-sandbox-item-1'): number 1 is always this toy at this price.
            #expect(first.title == "Handmade Ceramic Puzzle 1" && first.category == "toys")
            #expect(first.price.amount == 9519 && first.price.currency == "EUR" && first.available)
            #expect(first.features.count == 3 && first.link.hasSuffix("/items/1"))
        }
    }

    @Test("full text and typos: 'wireless headphnes' finds wireless headphones first")
    func typoTolerant() async throws {
        try await SocialDatabase.with { db in
            let page = try await db.call(
                Social.SearchCatalog.self, .init(q: "wireless headphnes", limit: 5), as: UUID())
            #expect(page.items.count == 5)
            #expect(page.items.allSatisfy { $0.title.hasPrefix("Wireless") && $0.title.contains("Headphones") })
            let mug = try await db.call(Social.SearchCatalog.self, .init(q: "mug"), as: UUID())
            #expect(mug.items.first?.title.contains("Mug") == true)
        }
    }

    @Test("filters: category and price range, inclusive; every page obeys them; pages never repeat an item")
    func filtersAndPaging() async throws {
        try await SocialDatabase.with { db in
            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await db.call(
                    Social.SearchCatalog.self,
                    .init(q: "candle", category: "home", minPrice: 1_000, maxPrice: 5_000, limit: 25, cursor: cursor),
                    as: UUID())
                for item in page.items {
                    #expect(item.category == "home" && (1_000...5_000).contains(item.price.amount))
                }
                seen += page.items.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen.count == Set(seen).count)
            let expected = try await db.count(
                """
                SELECT count(*) FROM social.catalog_items WHERE category = 'home' AND price_amount BETWEEN 1000 AND 5000
                  AND (search @@ websearch_to_tsquery('english', 'candle') OR 'candle' <% lower(title))
                """)
            #expect(seen.count == expected && expected > 25)
            // Without words: everything in the category, by id.
            let all = try await db.call(Social.SearchCatalog.self, .init(category: "books", limit: 100), as: UUID())
            #expect(all.items.count == 100 && all.nextCursor != nil)
        }
    }

    @Test("bad searches are 400s naming the field; an unknown item is 404; callers must sign in")
    func badInput() async throws {
        try await SocialDatabase.with { db in
            let user = UUID()
            let cases: [(Social.SearchCatalog.Request, String)] = [
                (.init(minPrice: -1), "minPrice"), (.init(minPrice: 500, maxPrice: 100), "maxPrice"),
                (.init(limit: 101), "limit"), (.init(cursor: "nope"), "cursor"),
                (.init(q: String(repeating: "a", count: 201)), "q"), (.init(category: "Books!"), "category"),
            ]
            for (request, field) in cases {
                #expect(await db.error(Social.SearchCatalog.self, request, as: user)?.field == field)
            }
            #expect(await db.error(Social.GetCatalogItem.self, .init(id: UUID().uuidString), as: user)?.code == .notFound)
            #expect(await db.error(Social.GetCatalogItem.self, .init(id: "x"), as: user)?.code == .notFound)
            #expect(await db.error(Social.SearchCatalog.self, .init(), as: nil)?.code == .unauthenticated)
        }
    }
}
