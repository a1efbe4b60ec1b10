import Contract
import Foundation
import Logging
import PostgresNIO
import PrintingContract
import ServiceKit
import Store

/// Resumable uploads in `printing.uploads` and their bytes in `printing.upload_chunks`
/// (migration `0008_uploads.sql`): an append is one transaction that checks the offset under the
/// row's lock, stores the chunk and moves the offset, so an acknowledged chunk is on disk and two
/// appends at one offset cannot both win. The finished upload becomes an image in the same way as
/// `upload_image`.
public struct UploadBook: Sendable {
    let client: PostgresClient
    let images: ImageLibrary
    let policy: UploadPolicy
    let clock: any WallClock
    let logger: Logger

    /// Creates the book.
    public init(
        client: PostgresClient, images: ImageLibrary, policy: UploadPolicy, clock: any WallClock, logger: Logger
    ) {
        self.client = client
        self.images = images
        self.policy = policy
        self.clock = clock
        self.logger = logger
    }

    /// One upload's row.
    struct Row: Sendable {
        var id: UUID
        var owner: UUID
        var length: Int64
        var received: Int64
        var contentType: String?
        var imageId: UUID?
        var expiresAt: Date
    }

    /// Starts an upload of `actor`'s.
    public func create(_ request: Printing.CreateUpload.Request, actor: Actor) async throws -> Printing.UploadState {
        let owner = try Self.owner(actor)
        try policy.check(length: request.length)
        if let type = request.contentType, ImageFormat(contentType: type) == nil {
            throw ImageRejection(
                .unsupportedType, "filetype \(type.prefix(100)) is not accepted; use image/jpeg, image/png or image/bmp"
            ).serviceError
        }
        let id = UUID()
        let now = clock.now()
        let expires = policy.expiry(after: now)
        let limit = policy.maxOpenPerOwner
        let inserted = try await client.fetch(
            """
            INSERT INTO printing.uploads (id, owner_id, length, content_type, created_at, expires_at)
            SELECT \(id), \(owner), \(request.length), \(request.contentType), \(now), \(expires)
            WHERE (SELECT count(*) FROM printing.uploads
                   WHERE owner_id = \(owner) AND image_id IS NULL AND expires_at > \(now)) < \(limit)
            RETURNING id
            """, logger: logger)
        var created = false
        for try await _ in inserted.decode(UUID.self) { created = true }
        guard created else {
            throw ServiceError(
                .rateLimited, "at most \(limit) unfinished uploads at once; finish or let one expire",
                details: ["retryAfterSeconds": .number(60)])
        }
        return .init(id: id.uuidString.lowercased(), offset: 0, length: request.length, expiresAt: expires, image: nil)
    }

    /// Where upload `id` of `actor`'s stands; an upload whose last bytes are in but which is not
    /// an image yet (a crash between the two) is finished here.
    public func status(_ id: String, actor: Actor) async throws -> Printing.UploadState {
        let row = try await find(id, actor: actor, on: nil)
        if row.imageId == nil, row.received == row.length { return try await finish(row, actor: actor) }
        return try await state(row, actor: actor)
    }

    /// Appends `request.data` at `request.offset` to upload `request.id` of `actor`'s.
    public func append(_ request: Printing.AppendUpload.Request, actor: Actor) async throws -> Printing.UploadState {
        guard let data = Data(base64Encoded: request.data) else {
            throw ServiceError.invalidArgument("data is not base64", field: "data")
        }
        let now = clock.now()
        let row = try await client.transaction(logger: logger) { connection in
            var row = try await find(request.id, actor: actor, on: connection, lock: true)
            if row.imageId != nil || (row.received == row.length && data.isEmpty) { return row }
            try policy.check(offset: request.offset, count: data.count, received: row.received, length: row.length)
            if !data.isEmpty {
                try await connection.fetch(
                    """
                    INSERT INTO printing.upload_chunks (upload_id, start_offset, data)
                    VALUES (\(row.id), \(row.received), \(data))
                    """, logger: logger)
                row.received += Int64(data.count)
                row.expiresAt = policy.expiry(after: now)
                try await connection.fetch(
                    """
                    UPDATE printing.uploads SET received = \(row.received), expires_at = \(row.expiresAt)
                    WHERE id = \(row.id)
                    """, logger: logger)
            }
            return row
        }
        if row.imageId == nil, row.received == row.length { return try await finish(row, actor: actor) }
        return try await state(row, actor: actor)
    }

    /// Turns a complete upload into an image: its bytes through the upload guards, then (under
    /// the row's lock, so two finishers make one image) the image row, the link and the chunks
    /// gone. Bytes the guards refuse end the upload: it is deleted and the refusal answered.
    func finish(_ row: Row, actor: Actor) async throws -> Printing.UploadState {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(row.length))
        let chunks = try await client.fetch(
            """
            SELECT data FROM printing.upload_chunks WHERE upload_id = \(row.id) ORDER BY start_offset
            """, logger: logger)
        for try await chunk in chunks.decode(Data.self) { bytes += chunk }
        guard bytes.count == row.length else {
            throw ServiceError(.internal, "upload \(row.id) has \(bytes.count) of \(row.length) bytes stored")
        }
        let inspected: InspectedImage
        do {
            guard let contentType = row.contentType ?? ImageFormat.sniff(bytes)?.rawValue else {
                throw ImageRejection(.wrongType, "the upload is not a JPEG, PNG or BMP image").serviceError
            }
            inspected = try images.inspect(bytes, contentType: contentType)
        } catch {
            try await client.fetch("DELETE FROM printing.uploads WHERE id = \(row.id)", logger: logger)
            throw error
        }
        let imageId = try await client.transaction(logger: logger) { connection in
            let current = try await find(row.id.uuidString, actor: actor, on: connection, lock: true)
            if let existing = current.imageId { return existing }
            let image = try await images.store(bytes, image: inspected, owner: row.owner, on: connection)
            guard let id = UUID(uuidString: image.id) else { throw ServiceError(.internal, "bad image id") }
            try await connection.fetch(
                "UPDATE printing.uploads SET image_id = \(id) WHERE id = \(row.id)", logger: logger)
            try await connection.fetch("DELETE FROM printing.upload_chunks WHERE upload_id = \(row.id)", logger: logger)
            return id
        }
        logger.info("upload finished", metadata: ["upload": "\(row.id)", "image": "\(imageId)"])
        var done = row
        done.imageId = imageId
        return try await state(done, actor: actor)
    }

    /// Deletes unfinished uploads that expired before `now` (their chunks go with them); the count.
    public func sweep(now: Date) async throws -> Int {
        var count = 0
        let rows = try await client.fetch(
            """
            DELETE FROM printing.uploads WHERE image_id IS NULL AND expires_at <= \(now) RETURNING id
            """, logger: logger)
        for try await _ in rows.decode(UUID.self) { count += 1 }
        return count
    }

    private func state(_ row: Row, actor: Actor) async throws -> Printing.UploadState {
        var image: Printing.ImageInfo?
        if let id = row.imageId { image = try await images.info(id.uuidString, actor: actor) }
        return .init(
            id: row.id.uuidString.lowercased(), offset: row.received, length: row.length, expiresAt: row.expiresAt,
            image: image)
    }

    /// The upload `id` if `actor` owns it and it has not expired unfinished; otherwise 404.
    private func find(_ id: String, actor: Actor, on connection: PostgresConnection?, lock: Bool = false)
        async throws -> Row
    {
        let owner = try Self.owner(actor)
        guard let uuid = UUID(uuidString: id) else { throw ServiceError.notFound("no such upload") }
        // PostgreSQL judges the expiry, as the quota and the sweep do, so the three agree to the
        // microsecond (an expiry read back as a `Date` can come back a fraction of one early).
        let query: PostgresQuery =
            """
            SELECT id, owner_id, length, received, content_type, image_id, expires_at, expires_at > \(clock.now())
            FROM printing.uploads WHERE id = \(uuid) \(unescaped: lock ? "FOR UPDATE" : "")
            """
        let rows =
            if let connection {
                try await connection.fetch(query, logger: logger)
            } else {
                try await client.fetch(query, logger: logger)
            }
        for try await (id, rowOwner, length, received, type, image, expires, open) in rows.decode(
            (UUID, UUID, Int64, Int64, String?, UUID?, Date, Bool).self)
        {
            guard rowOwner == owner, image != nil || open else { break }
            return Row(
                id: id, owner: rowOwner, length: length, received: received, contentType: type, imageId: image,
                expiresAt: expires)
        }
        throw ServiceError.notFound("no such upload")
    }

    private static func owner(_ actor: Actor) throws -> UUID {
        guard let owner = UUID(uuidString: actor.userId) else { throw ServiceError(.unauthenticated, "no user id") }
        return owner
    }
}
