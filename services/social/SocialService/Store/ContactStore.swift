import CommonContract
import Contract
import Foundation
import Logging
import OrdersContract
import PostgresNIO
import SocialContract
import Store

/// The `social.contacts` table: each user's address book, with the cards sent to each counted
/// from orders' events.
public struct ContactStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    static let columns =
        "id, name, address::text, email, phone, favourite, cards_sent, (extract(epoch FROM created_at) * 1000000)::bigint"

    /// A contact and its sort key for the cursor.
    struct Row: Sendable {
        let contact: Social.Contact
        let micros: Int64
        let id: UUID
    }

    func add(_ fields: ContactRules.Checked, for user: UUID, now: Date) async throws -> Social.Contact {
        let rows = try await client.fetch(
            """
            INSERT INTO social.contacts (id, user_id, name, address, email, phone, favourite, created_at, updated_at)
            VALUES (\(UUID()), \(user), \(fields.name ?? ""), \(try Self.json(fields.address))::jsonb,
                \(fields.email ?? nil), \(fields.phone ?? nil), \(fields.favourite ?? false), \(now), \(now))
            RETURNING \(unescaped: Self.columns)
            """, logger: logger)
        guard let row = try await Self.rows(rows).first else {
            throw ServiceError(.internal, "adding a contact returned no row")
        }
        return row.contact
    }

    /// Changes the given fields of `user`'s contact `id`; nil when there is no such contact.
    func update(_ id: UUID, of user: UUID, _ fields: ContactRules.Checked, now: Date) async throws -> Social.Contact? {
        let rows = try await client.fetch(
            """
            UPDATE social.contacts SET
                name = COALESCE(\(fields.name), name),
                address = CASE WHEN \(fields.address != nil) THEN \(try Self.json(fields.address))::jsonb ELSE address END,
                email = CASE WHEN \(fields.email != nil) THEN \(fields.email ?? nil) ELSE email END,
                phone = CASE WHEN \(fields.phone != nil) THEN \(fields.phone ?? nil) ELSE phone END,
                favourite = COALESCE(\(fields.favourite), favourite),
                updated_at = \(now)
            WHERE id = \(id) AND user_id = \(user)
            RETURNING \(unescaped: Self.columns)
            """, logger: logger)
        return try await Self.rows(rows).first?.contact
    }

    func delete(_ id: UUID, of user: UUID) async throws -> Bool {
        let rows = try await client.fetch(
            "DELETE FROM social.contacts WHERE id = \(id) AND user_id = \(user) RETURNING 1", logger: logger)
        return try await rows.collect().count == 1
    }

    /// `user`'s contacts in `order`, names similar to `q` only, after `cursor` (whose `micros`
    /// is the order's sort key: ``ContactRules/favouritesKey(favourite:createdMicros:)``, the
    /// creation time, or the cards sent).
    func list(
        of user: UUID, q: String?, order: Social.ContactOrder, after cursor: KeysetCursor?, limit: Int
    ) async throws -> [Row] {
        let key = cursor?.micros ?? Int64.max
        let after = cursor?.id ?? UUID(uuidString: "ffffffff-ffff-ffff-ffff-ffffffffffff")!
        let pattern = q.map { "%" + Self.escapeLike($0.lowercased()) + "%" }
        let rows: FetchedRows
        switch order {
        case .favourites:
            rows = try await client.fetch(
                """
                SELECT \(unescaped: Self.columns) FROM social.contacts
                WHERE user_id = \(user)
                  AND (\(q)::text IS NULL OR lower(name) LIKE \(pattern) OR lower(\(q)) <% lower(name))
                  AND (CASE WHEN favourite THEN \(ContactRules.favouriteLift) ELSE 0 END
                       + (extract(epoch FROM created_at) * 1000000)::bigint, id) < (\(key), \(after))
                ORDER BY favourite DESC, created_at DESC, id DESC LIMIT \(limit)
                """, logger: logger)
        case .recent:
            rows = try await client.fetch(
                """
                SELECT \(unescaped: Self.columns) FROM social.contacts
                WHERE user_id = \(user)
                  AND (\(q)::text IS NULL OR lower(name) LIKE \(pattern) OR lower(\(q)) <% lower(name))
                  AND ((extract(epoch FROM created_at) * 1000000)::bigint, id) < (\(key), \(after))
                ORDER BY created_at DESC, id DESC LIMIT \(limit)
                """, logger: logger)
        case .frequent:
            rows = try await client.fetch(
                """
                SELECT \(unescaped: Self.columns) FROM social.contacts
                WHERE user_id = \(user)
                  AND (\(q)::text IS NULL OR lower(name) LIKE \(pattern) OR lower(\(q)) <% lower(name))
                  AND (cards_sent::bigint, id) < (\(key), \(after))
                ORDER BY cards_sent DESC, id DESC LIMIT \(limit)
                """, logger: logger)
        }
        return try await Self.rows(rows).map { row in
            switch order {
            case .favourites:
                Row(
                    contact: row.contact,
                    micros: ContactRules.favouritesKey(favourite: row.contact.favourite, createdMicros: row.micros),
                    id: row.id)
            case .recent: row
            case .frequent: Row(contact: row.contact, micros: Int64(row.contact.cardsSent), id: row.id)
            }
        }
    }

    /// Those of `ids` that are `user`'s contacts.
    func contacts(_ ids: [UUID], of user: UUID) async throws -> [Social.Contact] {
        let rows = try await client.fetch(
            "SELECT \(unescaped: Self.columns) FROM social.contacts WHERE user_id = \(user) AND id = ANY(\(ids))",
            logger: logger)
        return try await Self.rows(rows).map(\.contact)
    }

    /// Counts the cards of a paid postcard or e-card order against its buyer's contacts
    /// (``ContactRules/cardsSent(postcards:ecards:to:)``), once per order however often its
    /// event arrives.
    func count(_ order: Orders.OrderEvent, eventId: UUID, now: Date, in tx: Transaction) async throws {
        let connection = tx.connection
        let postcards = order.postcard?.recipients ?? []
        let ecards = order.ecard?.recipients ?? []
        guard !postcards.isEmpty || !ecards.isEmpty, let user = UUID(uuidString: order.userId) else { return }
        let claimed = try await connection.fetch(
            """
            INSERT INTO social.counted_events (event_id, order_id, counted_at)
            VALUES (\(eventId), \(order.orderId.lowercased()), \(now))
            ON CONFLICT DO NOTHING RETURNING 1
            """, logger: logger)
        guard try await claimed.collect().count == 1 else { return }
        let rows = try await connection.fetch(
            """
            SELECT id, name, address::text, email FROM social.contacts
            WHERE user_id = \(user) AND (address IS NOT NULL OR email IS NOT NULL)
            """, logger: logger)
        var contacts: [ContactRules.Reachable] = []
        for try await (id, name, address, email) in rows.decode((UUID, String, String?, String?).self) {
            let decoded = try address.map {
                try Wire.makeDecoder().decode(PostalAddress.self, from: Data($0.utf8))
            }
            contacts.append(.init(id: id, name: name, address: decoded, email: email))
        }
        let sent = ContactRules.cardsSent(postcards: postcards, ecards: ecards, to: contacts)
        guard !sent.isEmpty else { return }
        let ids = Array(sent.keys)
        let counts = ids.map { Int32(sent[$0] ?? 0) }
        try await connection.fetch(
            """
            UPDATE social.contacts SET cards_sent = cards_sent + sent.n
            FROM unnest(\(ids)::uuid[], \(counts)::int[]) AS sent(id, n)
            WHERE social.contacts.id = sent.id
            """, logger: logger)
    }

    static func rows(_ rows: FetchedRows) async throws -> [Row] {
        var found: [Row] = []
        for try await (id, name, address, email, phone, favourite, sent, micros) in rows.decode(
            (UUID, String, String?, String?, String?, Bool, Int32, Int64).self)
        {
            let decoded = try address.map {
                try Wire.makeDecoder().decode(PostalAddress.self, from: Data($0.utf8))
            }
            found.append(
                Row(
                    contact: Social.Contact(
                        id: id.uuidString.lowercased(), name: name, address: decoded, email: email, phone: phone,
                        favourite: favourite, cardsSent: Int(sent)), micros: micros, id: id))
        }
        return found
    }

    static func json(_ address: PostalAddress?) throws -> String? {
        try address.map { String(decoding: try Wire.makeEncoder().encode($0), as: UTF8.self) }
    }

    static func escapeLike(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
