import Contract
import Foundation
import Logging
import PostgresNIO
import PrintingContract
import Store

/// The standard gallery's entries (`printing.gallery`), over their images in `printing.images`:
/// added, listed nearest first or newest first and searched by keyword, and taken out of the
/// listing.
public struct GalleryStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Mean earth radius (IUGG), in metres.
    static let earthRadius = 6_371_008.8

    /// Creates the store.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// One listed entry and its key: `micros` is its `created_at` in microseconds since the epoch.
    struct Listed: Sendable {
        let item: Printing.GalleryItem
        let micros: Int64
    }

    /// Stores entry `id` for image `imageId`, added by `adder`.
    func insert(
        id: UUID, imageId: UUID, title: String, tags: [String], place: String?, position: (lat: Double, lon: Double),
        adder: UUID, at created: Date
    ) async throws {
        try await client.fetch(
            """
            INSERT INTO printing.gallery (id, image_id, title, tags, place, lat, lon, added_by, created_at)
            VALUES (\(id), \(imageId), \(title), \(tags), \(place), \(position.lat), \(position.lon), \(adder),
                \(created))
            """, logger: logger)
    }

    /// Up to `query.limit + 1` listed entries after `query`'s cursor: nearest first by great-circle
    /// distance from its position, or newest first without one; ties by id. With words, only entries
    /// whose title, tags or place name hold every one (the trigram index of `gallery_search_text`
    /// serves the `LIKE`s).
    func page(_ query: GalleryQuery) async throws -> [Listed] {
        var sql = PostgresQuery.StringInterpolation(literalCapacity: 1_024, interpolationCount: 12)
        sql.appendLiteral(
            """
            SELECT id, image_id, title, tags, place, lat, lon, width, height, created_at, micros, distance FROM (
                SELECT g.id, g.image_id, g.title, g.tags, g.place, g.lat, g.lon, i.width, i.height, g.created_at,
                    (extract(epoch FROM g.created_at) * 1000000)::int8 AS micros,
            """)
        if let lat = query.lat, let lon = query.lon {
            // Haversine; least() keeps asin's argument at most 1 when rounding overshoots.
            sql.appendLiteral(" 2 * \(Self.earthRadius) * asin(least(1, sqrt(power(sin(radians(g.lat - ")
            sql.appendInterpolation(lat)
            sql.appendLiteral(") / 2), 2) + cos(radians(")
            sql.appendInterpolation(lat)
            sql.appendLiteral(")) * cos(radians(g.lat)) * power(sin(radians(g.lon - ")
            sql.appendInterpolation(lon)
            sql.appendLiteral(") / 2), 2)))) AS distance")
        } else {
            sql.appendLiteral(" NULL::float8 AS distance")
        }
        sql.appendLiteral(
            " FROM printing.gallery g JOIN printing.images i ON i.id = g.image_id WHERE g.removed_at IS NULL")
        for pattern in query.patterns {
            sql.appendLiteral(" AND printing.gallery_search_text(g.title, g.place, g.tags) LIKE lower(")
            sql.appendInterpolation(pattern)
            sql.appendLiteral(")")
        }
        if query.hasPosition {
            sql.appendLiteral(") d WHERE (distance, id) > (")
            sql.appendInterpolation(query.after?.distance ?? -1)
            sql.appendLiteral(", ")
            sql.appendInterpolation(query.after?.id ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
            sql.appendLiteral(") ORDER BY distance, id")
        } else {
            if let after = query.after, let created = after.created {
                // The key as a timestamp again, so the (created_at, id) index serves the page.
                sql.appendLiteral(" AND (g.created_at, g.id) < (timestamptz 'epoch' + interval '1 microsecond' * ")
                sql.appendInterpolation(created)
                sql.appendLiteral(", ")
                sql.appendInterpolation(after.id)
                sql.appendLiteral(")")
            }
            sql.appendLiteral(") d ORDER BY created_at DESC, id DESC")
        }
        sql.appendLiteral(" LIMIT ")
        sql.appendInterpolation(query.limit + 1)
        let rows = try await client.fetch(PostgresQuery(stringInterpolation: sql), logger: logger)
        var listed: [Listed] = []
        for try await (id, imageId, title, tags, place, lat, lon, width, height, created, micros, distance)
            in rows.decode(
                (UUID, UUID, String, [String], String?, Double, Double, Int32, Int32, Date, Int64, Double?).self)
        {
            listed.append(
                Listed(
                    item: Printing.GalleryItem(
                        id: id.uuidString.lowercased(), imageId: imageId.uuidString.lowercased(), title: title,
                        tags: tags, place: place, lat: lat, lon: lon, width: Int(width), height: Int(height),
                        distanceMeters: distance, createdAt: created),
                    micros: micros))
        }
        return listed
    }

    /// Takes entry `id` out of the listing at `now`; false when no listed entry has that id.
    func remove(_ id: UUID, at now: Date) async throws -> Bool {
        let rows = try await client.fetch(
            """
            UPDATE printing.gallery SET removed_at = \(now)
            WHERE id = \(id) AND removed_at IS NULL RETURNING id
            """, logger: logger)
        for try await _ in rows { return true }
        return false
    }
}
