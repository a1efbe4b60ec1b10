import Contract
import Foundation
import Logging
import PrintingContract
import Store

/// The standard gallery: template images an admin adds with the place they show and tags, listed
/// nearest first from the user's position or newest first without one, and searched by keyword.
/// Its images are stored like any upload, and ``ImageLibrary`` lets every user put them on a card.
public struct GalleryHandler: Sendable {
    let images: ImageLibrary
    let store: GalleryStore
    let clock: any WallClock
    let logger: Logger

    /// Longest title, in characters.
    public static let maxTitle = 200

    /// Creates the handler over the image library.
    public init(images: ImageLibrary, store: GalleryStore, clock: any WallClock, logger: Logger) {
        self.images = images
        self.store = store
        self.clock = clock
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
        try await store.insert(
            id: id, imageId: imageId, title: title, tags: tags, place: place, position: position, adder: adder,
            at: info.createdAt)
        logger.info("gallery image added", metadata: ["galleryId": "\(id)", "image": "\(imageId)"])
        return Printing.GalleryItem(
            id: id.uuidString.lowercased(), imageId: info.id, title: title, tags: tags, place: place,
            lat: position.lat, lon: position.lon, width: info.width, height: info.height, distanceMeters: nil,
            createdAt: info.createdAt)
    }

    /// One page of the gallery for any signed-in `actor`: nearest first from the asked position,
    /// or newest first without one; with `q`, only entries that hold every word.
    public func list(_ request: Printing.ListGallery.Request, actor: Actor) async throws -> Printing.ListGallery.Reply {
        let query = try GalleryQuery(request)
        let fetched = try await store.page(query)
        let listed = fetched.prefix(query.limit)
        let items = listed.map(\.item)
        guard fetched.count > query.limit, let last = listed.last, let id = UUID(uuidString: last.item.id) else {
            return .init(items: items, nextCursor: nil)
        }
        let cursor =
            if let distance = last.item.distanceMeters {
                query.cursor(after: distance, id: id)
            } else {
                query.cursor(afterCreated: last.micros, id: id)
            }
        return .init(items: items, nextCursor: cursor)
    }

    /// Takes entry `request.id` out of the listing (its image stays usable for cards already
    /// ordered); `admin` is the caller holding the `admin` role.
    @discardableResult
    public func remove(_ request: Printing.RemoveGalleryImage.Request, admin: Actor) async throws -> Empty {
        guard let id = UUID(uuidString: request.id), try await store.remove(id, at: clock.now()) else {
            throw ServiceError.notFound("no such gallery image")
        }
        return Empty()
    }
}
