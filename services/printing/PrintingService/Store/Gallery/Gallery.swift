import Contract
import Foundation
import Logging
import PostgresNIO
import PrintingContract
import Store

/// The standard gallery (`printing.gallery`): template images an admin adds with the place they
/// show, listed nearest first from the user's position. Its images are stored like any upload,
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

    /// Adds an image: title required, position from the request or else the image's EXIF GPS.
    /// The image passes the upload guards first; nothing is stored when anything is refused.
    public func add(_ request: Printing.AddGalleryImage.Request, actor: Actor) async throws -> Printing.GalleryItem {
        let title = (request.title ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty, title.count <= Self.maxTitle else {
            throw ServiceError.invalidArgument("title is 1 to \(Self.maxTitle) characters", field: "title")
        }
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
            INSERT INTO printing.gallery (id, image_id, title, lat, lon, added_by, created_at)
            VALUES (\(id), \(imageId), \(title), \(position.lat), \(position.lon), \(adder), \(info.createdAt))
            """, logger: logger)
        logger.info("gallery image added", metadata: ["galleryId": "\(id)", "image": "\(imageId)"])
        return Printing.GalleryItem(
            id: id.uuidString.lowercased(), imageId: info.id, title: title, lat: position.lat, lon: position.lon,
            width: info.width, height: info.height, distanceMeters: nil, createdAt: info.createdAt)
    }

    /// One page of the gallery, nearest first by great-circle distance, ties by id.
    public func list(_ request: Printing.ListGallery.Request) async throws -> Printing.ListGallery.Reply {
        let query = try GalleryQuery(request)
        let afterDistance = query.after?.distance ?? -1
        let afterId = query.after?.id ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        // Haversine; least() keeps asin's argument at most 1 when rounding overshoots.
        let rows = try await images.client.fetch(
            """
            SELECT id, image_id, title, lat, lon, width, height, created_at, distance FROM (
                SELECT g.id, g.image_id, g.title, g.lat, g.lon, i.width, i.height, g.created_at,
                    2 * \(Self.earthRadius) * asin(least(1, sqrt(
                        power(sin(radians(g.lat - \(query.lat)) / 2), 2)
                        + cos(radians(\(query.lat))) * cos(radians(g.lat)) * power(sin(radians(g.lon - \(query.lon)) / 2), 2)
                    ))) AS distance
                FROM printing.gallery g JOIN printing.images i ON i.id = g.image_id
                WHERE g.removed_at IS NULL
            ) d
            WHERE (distance, id) > (\(afterDistance), \(afterId))
            ORDER BY distance, id
            LIMIT \(query.limit + 1)
            """, logger: logger)
        var items: [Printing.GalleryItem] = []
        var last: (Double, UUID)?
        var more = false
        for try await (id, imageId, title, lat, lon, width, height, created, distance) in rows.decode(
            (UUID, UUID, String, Double, Double, Int32, Int32, Date, Double).self)
        {
            guard items.count < query.limit else {
                more = true
                break
            }
            items.append(
                Printing.GalleryItem(
                    id: id.uuidString.lowercased(), imageId: imageId.uuidString.lowercased(), title: title, lat: lat,
                    lon: lon, width: Int(width), height: Int(height), distanceMeters: distance, createdAt: created))
            last = (distance, id)
        }
        return .init(items: items, nextCursor: more ? last.map { query.cursor(after: $0.0, id: $0.1) } : nil)
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
