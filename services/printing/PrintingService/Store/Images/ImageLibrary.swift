import Contract
import Crypto
import Foundation
import Logging
import PostgresNIO
import PrintingContract
import ServiceKit
import Store

/// Uploads and looks up images: the guards of ``ImageInspector``, the original under its
/// content address, the metadata in `printing.images`.
public struct ImageLibrary: Sendable {
    let client: PostgresClient
    let originals: OriginalsDirectory
    let limits: ImageLimits
    let clock: any WallClock
    let logger: Logger
    /// Where originals are decoded.
    public let pool: DedicatedThreadPool

    /// Creates the library; originals are decoded on `pool`.
    public init(
        client: PostgresClient, originals: OriginalsDirectory, limits: ImageLimits, clock: any WallClock,
        logger: Logger, pool: DedicatedThreadPool = .sharedRender
    ) {
        self.client = client
        self.originals = originals
        self.limits = limits
        self.clock = clock
        self.logger = logger
        self.pool = pool
    }

    /// Checks and stores an upload of `actor`'s; `accept` may refuse the image once it passed the
    /// guards, before anything is stored.
    public func upload(
        _ request: Printing.UploadImage.Request, actor: Actor,
        accept: (InspectedImage) throws -> Void = { _ in }
    ) async throws -> Printing.ImageInfo {
        guard let owner = UUID(uuidString: actor.userId) else { throw ServiceError(.unauthenticated, "no user id") }
        guard request.data.utf8.count <= (limits.maxBytes / 3 + 2) * 4 else {
            throw ImageRejection(.tooLarge, "the image is larger than \(limits.maxBytes) bytes").serviceError
        }
        guard let data = Data(base64Encoded: request.data) else {
            throw ServiceError.invalidArgument("data is not base64", field: "data")
        }
        return try await store([UInt8](data), contentType: request.contentType, owner: owner, accept: accept)
    }

    /// Checks `bytes` (sent as `contentType`) with the upload guards and stores them as a new
    /// image of `owner`'s: the path of `POST /v1/images` and of a finished resumable upload.
    public func store(
        _ bytes: [UInt8], contentType: String, owner: UUID, accept: (InspectedImage) throws -> Void = { _ in }
    ) async throws -> Printing.ImageInfo {
        let image = try inspect(bytes, contentType: contentType)
        try accept(image)
        return try await store(bytes, image: image, owner: owner, on: nil)
    }

    /// `bytes` through the upload guards; a rejection is the 400 a client sees.
    func inspect(_ bytes: [UInt8], contentType: String) throws -> InspectedImage {
        do {
            return try ImageInspector.inspect(bytes, contentType: contentType, limits: limits)
        } catch {
            throw error.serviceError
        }
    }

    /// Writes the original of an inspected image and its row (on `connection` when given, so a
    /// caller's transaction holds it).
    func store(_ bytes: [UInt8], image: InspectedImage, owner: UUID, on connection: PostgresConnection?)
        async throws -> Printing.ImageInfo
    {
        let sha256 = SHA256.hash(data: bytes).lowercaseHex
        _ = try originals.store(bytes, sha256: sha256, format: image.format)
        let id = UUID()
        let now = clock.now()
        let insert: PostgresQuery =
            """
            INSERT INTO printing.images (id, owner_id, sha256, media_type, bytes, width, height, orientation, gps_lat,
                gps_lon, created_at)
            VALUES (\(id), \(owner), \(sha256), \(image.format.rawValue), \(bytes.count), \(image.width),
                \(image.height), \(image.exif.orientation), \(image.exif.latitude), \(image.exif.longitude), \(now))
            """
        if let connection {
            try await connection.fetch(insert, logger: logger)
        } else {
            try await client.fetch(insert, logger: logger)
        }
        logger.info(
            "image stored",
            metadata: ["image": "\(id)", "bytes": "\(bytes.count)", "size": "\(image.width)x\(image.height)"])
        return Printing.ImageInfo(
            id: id.uuidString.lowercased(), width: image.width, height: image.height,
            gps: image.exif.latitude.flatMap { lat in image.exif.longitude.map { .init(lat: lat, lon: $0) } },
            mediaType: image.format.rawValue, bytes: bytes.count, sha256: sha256, orientation: image.exif.orientation,
            createdAt: now)
    }

    /// ``store(_:image:owner:on:)`` in `tx`, so the caller's transaction holds the row.
    func store(_ bytes: [UInt8], image: InspectedImage, owner: UUID, in tx: Transaction) async throws
        -> Printing.ImageInfo
    {
        try await store(bytes, image: image, owner: owner, on: tx.connection)
    }

    /// The decoded pixels and EXIF orientation of image `id`, under the same rule as ``info(_:actor:)``;
    /// read and decoded on the render pool, at the smallest JPEG scale not under what
    /// `minimumScale` answers for the image (full size by default).
    public func pixels(
        _ id: String, actor: Actor, minimumScale: @escaping @Sendable (Printing.ImageInfo) -> Double = { _ in 1 }
    ) async throws -> (DecodedPixels, Int) {
        let image = try await info(id, actor: actor)
        return (try await decode(image, minimumScale: minimumScale), image.orientation)
    }

    /// The decoded pixels of `image` (whose access was checked), read and decoded on the render pool.
    func decode(
        _ image: Printing.ImageInfo, minimumScale: @escaping @Sendable (Printing.ImageInfo) -> Double = { _ in 1 }
    ) async throws -> DecodedPixels {
        let id = image.id
        guard let format = ImageFormat(contentType: image.mediaType) else {
            throw ServiceError(.internal, "image \(id) has an unknown media type")
        }
        let url = originals.url(sha256: image.sha256, format: format)
        return try await pool.run {
            let bytes = try [UInt8](Data(contentsOf: url))
            do {
                return try PixelDecoder.decode(bytes, format: format, minimumScale: minimumScale(image))
            } catch let rejection as ImageRejection {
                throw rejection.serviceError
            }
        }
    }

    /// The image `id` if `actor` owns it or it is (or was) in the standard gallery (printers and
    /// admins see any); otherwise 404.
    public func info(_ id: String, actor: Actor) async throws -> Printing.ImageInfo {
        guard let uuid = UUID(uuidString: id) else { throw ServiceError.notFound("no such image") }
        let rows = try await client.fetch(
            """
            SELECT owner_id, sha256, media_type, bytes, width, height, orientation, gps_lat, gps_lon, created_at,
                EXISTS (SELECT 1 FROM printing.gallery g WHERE g.image_id = images.id)
            FROM printing.images WHERE id = \(uuid)
            """, logger: logger)
        for try await (owner, sha, type, size, width, height, orientation, lat, lon, created, gallery) in rows.decode(
            (UUID, String, String, Int64, Int32, Int32, Int16, Double?, Double?, Date, Bool).self)
        {
            guard owner.uuidString.lowercased() == actor.userId.lowercased() || actor.has(.printer) || gallery
            else { break }
            return Printing.ImageInfo(
                id: uuid.uuidString.lowercased(), width: Int(width), height: Int(height),
                gps: lat.flatMap { lat in lon.map { .init(lat: lat, lon: $0) } }, mediaType: type, bytes: Int(size),
                sha256: sha, orientation: Int(orientation), createdAt: created)
        }
        throw ServiceError.notFound("no such image")
    }
}
