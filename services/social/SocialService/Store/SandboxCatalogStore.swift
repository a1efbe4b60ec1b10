import CommonContract
import Contract
import Foundation
import Logging
import PostgresNIO
import SocialContract

/// The sandbox catalogue (`social.catalog_items`, made by migration 0002): full-text search,
/// then trigram similarity of the title, so a misspelt word still finds its product.
public struct SandboxCatalogStore: CatalogProvider {
    let client: PostgresClient
    let logger: Logger
    public let name = "sandbox"

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    static let columns = """
        id, title, brand, category, description, features, price_amount, currency, available, image_url,
        rating_tenths, number
        """

    /// The score of a product whose words match the search in full text: above any score of a
    /// product found only by title similarity (those are at most 999,999), so such products come first.
    static let fullTextScore: Int64 = 1_000_000

    /// A search reads in two steps so that a common word stays cheap: first the products that
    /// match it in full text, ranked by `ts_rank` (normalised to below 1, on top of 1,000,000;
    /// title words weigh most), and only if they do not fill the page, the products whose title
    /// is merely similar to the text (a typo), ranked by `word_similarity`. The trigram
    /// similarity, the costly part, is then computed only for the few titles that are similar,
    /// never for each of the (up to a thousand) full-text matches of a word such as "premium".
    public func search(_ query: CatalogQuery) async throws -> Page<Social.CatalogItem> {
        let afterScore = query.after?.micros ?? Int64.max
        let afterId = query.after?.id ?? UUID(uuidString: "ffffffff-ffff-ffff-ffff-ffffffffffff")!
        let minPrice = query.minPrice ?? 0
        let maxPrice = query.maxPrice ?? Int64.max
        var found: [(item: Social.CatalogItem, score: Int64)] = []
        if let text = query.text {
            if afterScore >= Self.fullTextScore {
                found = try await collect(
                    """
                    WITH q AS (SELECT websearch_to_tsquery('english', \(text)) AS ts)
                    SELECT * FROM (
                        SELECT \(unescaped: Self.columns),
                            (\(Self.fullTextScore) + least(999999, round(ts_rank(search, q.ts, 32) * 1000000)))::bigint
                                AS score
                        FROM social.catalog_items, q
                        WHERE search @@ q.ts
                          AND (\(query.category)::text IS NULL OR category = \(query.category))
                          AND price_amount BETWEEN \(minPrice) AND \(maxPrice)
                    ) found
                    WHERE (score, id) < (\(afterScore), \(afterId))
                    ORDER BY score DESC, id DESC LIMIT \(query.limit + 1)
                    """)
            }
            if found.count <= query.limit {
                found += try await collect(
                    """
                    WITH q AS (SELECT websearch_to_tsquery('english', \(text)) AS ts, lower(\(text)) AS words)
                    SELECT * FROM (
                        SELECT \(unescaped: Self.columns),
                            least(999999, round(word_similarity(q.words, lower(title)) * 1000000))::bigint AS score
                        FROM social.catalog_items, q
                        WHERE q.words <% lower(title) AND NOT (search @@ q.ts)
                          AND (\(query.category)::text IS NULL OR category = \(query.category))
                          AND price_amount BETWEEN \(minPrice) AND \(maxPrice)
                    ) found
                    WHERE (score, id) < (\(afterScore), \(afterId))
                    ORDER BY score DESC, id DESC LIMIT \(query.limit + 1 - found.count)
                    """)
            }
        } else {
            found = try await collect(
                """
                SELECT \(unescaped: Self.columns), 0::bigint AS score FROM social.catalog_items
                WHERE (\(query.category)::text IS NULL OR category = \(query.category))
                  AND price_amount BETWEEN \(minPrice) AND \(maxPrice)
                  AND (0::bigint, id) < (\(afterScore), \(afterId))
                ORDER BY id DESC LIMIT \(query.limit + 1)
                """)
        }
        let kept = found.prefix(query.limit)
        let next =
            found.count > query.limit
            ? kept.last.map { KeysetCursor.text(micros: $0.score, id: $0.item.id) } : nil
        return Page(items: kept.map(\.item), nextCursor: next)
    }

    /// The products (with their scores) of a search query.
    private func collect(_ sql: PostgresQuery) async throws -> [(item: Social.CatalogItem, score: Int64)] {
        let rows = try await client.fetch(sql, logger: logger)
        var found: [(item: Social.CatalogItem, score: Int64)] = []
        for try await row in rows {
            let (id, title, brand, category, description, features, amount, currency, available, image, rating, number,
                score) = try row.decode(
                    (UUID, String, String, String, String, [String], Int64, String, Bool, String, Int32, Int32, Int64)
                        .self)
            found.append(
                (
                    Self.item(
                        id: id, title: title, brand: brand, category: category, description: description,
                        features: features, amount: amount, currency: currency, available: available, image: image,
                        rating: rating, number: number), score
                ))
        }
        return found
    }

    public func item(_ id: String) async throws -> Social.CatalogItem? {
        guard let uuid = UUID(uuidString: id) else { return nil }
        let rows = try await client.fetch(
            "SELECT \(unescaped: Self.columns) FROM social.catalog_items WHERE id = \(uuid)", logger: logger)
        for try await row in rows {
            let (id, title, brand, category, description, features, amount, currency, available, image, rating, number) =
                try row.decode(
                    (UUID, String, String, String, String, [String], Int64, String, Bool, String, Int32, Int32).self)
            return Self.item(
                id: id, title: title, brand: brand, category: category, description: description, features: features,
                amount: amount, currency: currency, available: available, image: image, rating: rating, number: number)
        }
        return nil
    }

    public func items(_ ids: [String]) async throws -> [String: Social.CatalogItem] {
        let uuids = ids.compactMap(UUID.init(uuidString:))
        guard !uuids.isEmpty else { return [:] }
        let rows = try await client.fetch(
            "SELECT \(unescaped: Self.columns) FROM social.catalog_items WHERE id = ANY(\(uuids))", logger: logger)
        var found: [String: Social.CatalogItem] = [:]
        for try await row in rows {
            let (id, title, brand, category, description, features, amount, currency, available, image, rating, number) =
                try row.decode(
                    (UUID, String, String, String, String, [String], Int64, String, Bool, String, Int32, Int32).self)
            let item = Self.item(
                id: id, title: title, brand: brand, category: category, description: description, features: features,
                amount: amount, currency: currency, available: available, image: image, rating: rating, number: number)
            found[item.id] = item
        }
        return found
    }

    static func item(
        id: UUID, title: String, brand: String, category: String, description: String, features: [String],
        amount: Int64, currency: String, available: Bool, image: String, rating: Int32, number: Int32
    ) -> Social.CatalogItem {
        Social.CatalogItem(
            id: id.uuidString.lowercased(), title: title, brand: brand, category: category, description: description,
            features: features, price: Money(amount: amount, currency: currency), available: available,
            imageUrl: image, link: "https://shop.sandbox.backplane.invalid/items/\(number)",
            rating: Double(rating) / 10)
    }
}
