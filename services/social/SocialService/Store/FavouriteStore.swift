import CommonContract
import Contract
import Foundation
import Logging
import PostgresNIO
import SocialContract

/// The `social.favourites` table: wish lists, each item as it was seen when added.
public struct FavouriteStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// A stored favourite and its time in microseconds (for the cursor).
    struct Row: Sendable {
        let favourite: Social.Favourite
        let micros: Int64
        let id: UUID
    }

    /// Adds `item` to `user`'s list, or replaces the note of the one there; whether it was new.
    func add(_ item: Social.CatalogItem, note: String?, for user: UUID, now: Date) async throws -> (Row, Bool) {
        let rows = try await client.fetch(
            """
            INSERT INTO social.favourites
                (id, user_id, item_id, note, title, image_url, price_amount, currency, added_at)
            VALUES (\(UUID()), \(user), \(item.id), \(note), \(item.title), \(item.imageUrl), \(item.price.amount),
                \(item.price.currency), \(now))
            ON CONFLICT (user_id, item_id) DO UPDATE SET note = excluded.note, title = excluded.title,
                image_url = excluded.image_url, price_amount = excluded.price_amount, currency = excluded.currency
            RETURNING item_id, title, image_url, price_amount, currency, note,
                (extract(epoch FROM added_at) * 1000000)::bigint, id, (xmax = 0)
            """, logger: logger)
        for try await (item, title, image, amount, currency, note, micros, id, inserted) in rows.decode(
            (String, String, String, Int64, String, String?, Int64, UUID, Bool).self)
        {
            return (Self.row(item, title, image, amount, currency, note, micros, id), inserted)
        }
        throw ServiceError(.internal, "adding a favourite returned no row")
    }

    /// `user`'s list, newest first, after `cursor`.
    func list(of user: UUID, after cursor: KeysetCursor?, limit: Int) async throws -> [Row] {
        let micros = cursor?.micros ?? Int64.max
        let after = cursor?.id ?? UUID(uuidString: "ffffffff-ffff-ffff-ffff-ffffffffffff")!
        let rows = try await client.fetch(
            """
            SELECT item_id, title, image_url, price_amount, currency, note,
                (extract(epoch FROM added_at) * 1000000)::bigint AS micros, id
            FROM social.favourites
            WHERE user_id = \(user) AND ((extract(epoch FROM added_at) * 1000000)::bigint, id) < (\(micros), \(after))
            ORDER BY added_at DESC, id DESC LIMIT \(limit)
            """, logger: logger)
        var found: [Row] = []
        for try await (item, title, image, amount, currency, note, micros, id) in rows.decode(
            (String, String, String, Int64, String, String?, Int64, UUID).self)
        {
            found.append(Self.row(item, title, image, amount, currency, note, micros, id))
        }
        return found
    }

    /// Takes `itemId` off `user`'s list; whether it was there.
    func remove(_ itemId: String, of user: UUID) async throws -> Bool {
        let rows = try await client.fetch(
            "DELETE FROM social.favourites WHERE user_id = \(user) AND item_id = \(itemId) RETURNING 1",
            logger: logger)
        return try await rows.collect().count == 1
    }

    static func row(
        _ id: String, _ title: String, _ image: String, _ amount: Int64, _ currency: String, _ note: String?,
        _ micros: Int64, _ rowId: UUID
    ) -> Row {
        Row(
            favourite: Social.Favourite(
                itemId: id, title: title, imageUrl: image, price: Money(amount: amount, currency: currency),
                available: true, note: note, addedAt: micros / 1_000), micros: micros, id: rowId)
    }
}
