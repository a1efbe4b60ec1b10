import Contract
import Foundation
import Logging
import OrdersContract
import PostgresNIO
import SocialContract

/// The sandbox catalogue (`social.catalog_items`, made by migration 0002): full-text search
/// ranked with trigram similarity of the title, so a misspelt word still finds its product.
public struct SandboxCatalog: CatalogProvider {
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

    public func search(_ query: CatalogQuery) async throws -> Page<Social.CatalogItem> {
        let afterScore = query.after?.micros ?? Int64.max
        let afterId = query.after?.id ?? UUID(uuidString: "ffffffff-ffff-ffff-ffff-ffffffffffff")!
        let rows: PostgresRowSequence
        if let text = query.text {
            rows = try await client.query(
                """
                WITH q AS (SELECT websearch_to_tsquery('english', \(text)) AS ts, lower(\(text)) AS words)
                SELECT * FROM (
                    SELECT \(unescaped: Self.columns),
                        (round((ts_rank(search, q.ts) + word_similarity(q.words, lower(title))) * 1000000))::bigint
                            AS score
                    FROM social.catalog_items, q
                    WHERE (search @@ q.ts OR q.words <% lower(title))
                      AND (\(query.category)::text IS NULL OR category = \(query.category))
                      AND price_amount BETWEEN \(query.minPrice ?? 0) AND \(query.maxPrice ?? Int64.max)
                ) found
                WHERE (score, id) < (\(afterScore), \(afterId))
                ORDER BY score DESC, id DESC LIMIT \(query.limit + 1)
                """, logger: logger)
        } else {
            rows = try await client.query(
                """
                SELECT \(unescaped: Self.columns), 0::bigint AS score FROM social.catalog_items
                WHERE (\(query.category)::text IS NULL OR category = \(query.category))
                  AND price_amount BETWEEN \(query.minPrice ?? 0) AND \(query.maxPrice ?? Int64.max)
                  AND (0::bigint, id) < (\(afterScore), \(afterId))
                ORDER BY id DESC LIMIT \(query.limit + 1)
                """, logger: logger)
        }
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
        let kept = found.prefix(query.limit)
        let next =
            found.count > query.limit
            ? kept.last.map { KeysetCursor.text(micros: $0.score, id: $0.item.id) } : nil
        return Page(items: kept.map(\.item), nextCursor: next)
    }

    public func item(_ id: String) async throws -> Social.CatalogItem? {
        guard let uuid = UUID(uuidString: id) else { return nil }
        let rows = try await client.query(
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
        let rows = try await client.query(
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
            features: features, price: Orders.Money(amount: amount, currency: currency), available: available,
            imageUrl: image, link: "https://shop.sandbox.backplane.invalid/items/\(number)",
            rating: Double(rating) / 10)
    }
}
