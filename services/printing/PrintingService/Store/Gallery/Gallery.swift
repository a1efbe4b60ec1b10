import Contract
import Foundation
import Logging
import PostgresNIO
import PrintingContract
import Store

/// The standard gallery (`printing.gallery`): template images an admin adds with the place they
/// show and tags, listed nearest first from the user's position or newest first without one,
/// and searched by keyword. Its images are stored like any upload,
/// and ``ImageLibrary`` lets every user put them on a card.
public struct Gallery: Sendable {
    let images: ImageLibrary
    let logger: Logger

    /// Longest title, in characters.
    public static let maxTitle = 200
    /// Mean earth radius (IUGG), in metres.
    static let earthRadius = 6_371_008.8

    /// Creates the gallery over the image library.
    public init(images: ImageLibrary, logger: Logger) {
        self.images = images
        self.logger = logger
    }

    /// Adds an image: title required, position from the request or else the image's EXIF GPS,
    /// tags and place name optional. The image passes the upload guards first; nothing is stored
    /// when anything is refused.
    public func add(_ request: Printing.AddGalleryImage.Request, actor: Actor) async throws -> Printing.GalleryItem {
        let title = (request.title ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty, title.count <= Self.maxTitle else {
            throw ServiceError.invalidArgument("title is 1 to \(Self.maxTitle) characters", field: "title")
        }
        let tags = try GalleryLabels.tags(request.tags)
        let place = try GalleryLabels.place(request.place)
        let given =
            request.lat == nil && request.lon == nil
            ? nil : try GalleryQuery.position(lat: request.lat, lon: request.lon)
        var position: (lat: Double, lon: Double)?
        let info = try await images.upload(
            .init(contentType: request.contentType, data: request.data), actor: actor
        ) { image in
            if let given {
                position = given
            } else if let lat = image.exif.latitude, let lon = image.exif.longitude {
                position = (GalleryQuery.rounded(lat), GalleryQuery.rounded(lon))
            } else {
                throw ServiceError(
                    .invalidArgument, "give lat and lon: the image carries no EXIF GPS position",
                    details: ["field": "lat", "missing": .array(["lat", "lon"])])
            }
        }
        guard let position, let imageId = UUID(uuidString: info.id), let adder = UUID(uuidString: actor.userId) else {
            throw ServiceError(.internal, "gallery image stored without a position")
        }
        let id = UUID()
        try await images.client.fetch(
            """
            INSERT INTO printing.gallery (id, image_id, title, tags, place, lat, lon, added_by, created_at)
            VALUES (\(id), \(imageId), \(title), \(tags), \(place), \(position.lat), \(position.lon), \(adder),
                \(info.createdAt))
            """, logger: logger)
        logger.info("gallery image added", metadata: ["galleryId": "\(id)", "image": "\(imageId)"])
        return Printing.GalleryItem(
            id: id.uuidString.lowercased(), imageId: info.id, title: title, tags: tags, place: place,
            lat: position.lat, lon: position.lon, width: info.width, height: info.height, distanceMeters: nil,
            createdAt: info.createdAt)
    }

    /// One page of the gallery: nearest first by great-circle distance from the asked position,
    /// or newest first without one; ties by id. With `q`, only entries whose title, tags or place
    /// name hold every word (the trigram index of `gallery_search_text` serves the `LIKE`s).
    public func list(_ request: Printing.ListGallery.Request) async throws -> Printing.ListGallery.Reply {
        let query = try GalleryQuery(request)
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
        let rows = try await images.client.fetch(PostgresQuery(stringInterpolation: sql), logger: logger)
        var items: [Printing.GalleryItem] = []
        var last: (distance: Double?, created: Int64, id: UUID)?
        var more = false
        for try await (id, imageId, title, tags, place, lat, lon, width, height, created, micros, distance)
            in rows.decode(
                (UUID, UUID, String, [String], String?, Double, Double, Int32, Int32, Date, Int64, Double?).self)
        {
            guard items.count < query.limit else {
                more = true
                break
            }
            items.append(
                Printing.GalleryItem(
                    id: id.uuidString.lowercased(), imageId: imageId.uuidString.lowercased(), title: title, tags: tags,
                    place: place, lat: lat, lon: lon, width: Int(width), height: Int(height), distanceMeters: distance,
                    createdAt: created))
            last = (distance, micros, id)
        }
        guard more, let last else { return .init(items: items, nextCursor: nil) }
        let cursor =
            if let distance = last.distance {
                query.cursor(after: distance, id: last.id)
            } else {
                query.cursor(afterCreated: last.created, id: last.id)
            }
        return .init(items: items, nextCursor: cursor)
    }

    /// Takes entry `id` out of the listing (its image stays usable for cards already ordered).
    public func remove(_ id: String) async throws {
        guard let uuid = UUID(uuidString: id) else { throw ServiceError.notFound("no such gallery image") }
        let rows = try await images.client.fetch(
            """
            UPDATE printing.gallery SET removed_at = \(images.clock.now())
            WHERE id = \(uuid) AND removed_at IS NULL RETURNING id
            """, logger: logger)
        var removed = false
        for try await _ in rows { removed = true }
        guard removed else { throw ServiceError.notFound("no such gallery image") }
    }
}
