import Contract
import Foundation
import Logging
import PostgresNIO
import Store

/// Resumable uploads in `printing.uploads` and their bytes in `printing.upload_chunks`
/// (migration `0008_uploads.sql`).
public struct UploadStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Creates the store.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// One upload: its length, the bytes received so far and, once finished, its image.
    struct Upload: Sendable {
        var id: UUID
        var owner: UUID
        var length: Int64
        var received: Int64
        var contentType: String?
        var imageId: UUID?
        var expiresAt: Date
    }

    /// Stores a new upload of `owner`'s unless they hold `openLimit` unfinished ones already;
    /// false when they do (the count and the insert are one statement).
    func insert(
        _ id: UUID, owner: UUID, length: Int64, contentType: String?, at now: Date, expires: Date, openLimit: Int
    ) async throws -> Bool {
        let inserted = try await client.fetch(
            """
            INSERT INTO printing.uploads (id, owner_id, length, content_type, created_at, expires_at)
            SELECT \(id), \(owner), \(length), \(contentType), \(now), \(expires)
            WHERE (SELECT count(*) FROM printing.uploads
                   WHERE owner_id = \(owner) AND image_id IS NULL AND expires_at > \(now)) < \(openLimit)
            RETURNING id
            """, logger: logger)
        for try await _ in inserted.decode(UUID.self) { return true }
        return false
    }

    /// The upload `id` if `owner` owns it and, unfinished, it has not expired by `now`; in `tx`
    /// when given, locked for the rest of it with `lock`.
    func find(_ id: UUID, owner: UUID, now: Date, in tx: Transaction?, lock: Bool) async throws -> Upload? {
        // PostgreSQL judges the expiry, as the quota and the sweep do, so the three agree to the
        // microsecond (an expiry read back as a `Date` can come back a fraction of one early).
        let query: PostgresQuery =
            """
            SELECT id, owner_id, length, received, content_type, image_id, expires_at, expires_at > \(now)
            FROM printing.uploads WHERE id = \(id) \(unescaped: lock ? "FOR UPDATE" : "")
            """
        let rows =
            if let tx {
                try await tx.connection.fetch(query, logger: tx.logger)
            } else {
                try await client.fetch(query, logger: logger)
            }
        for try await (id, rowOwner, length, received, type, image, expires, open) in rows.decode(
            (UUID, UUID, Int64, Int64, String?, UUID?, Date, Bool).self)
        {
            guard rowOwner == owner, image != nil || open else { break }
            return Upload(
                id: id, owner: rowOwner, length: length, received: received, contentType: type, imageId: image,
                expiresAt: expires)
        }
        return nil
    }

    /// Stores `data` as the chunk at `start` of `upload` and records its new offset and expiry
    /// (`upload.received`, `upload.expiresAt`).
    func append(_ data: Data, at start: Int64, to upload: Upload, in tx: Transaction) async throws {
        try await tx.connection.fetch(
            """
            INSERT INTO printing.upload_chunks (upload_id, start_offset, data)
            VALUES (\(upload.id), \(start), \(data))
            """, logger: tx.logger)
        try await tx.connection.fetch(
            """
            UPDATE printing.uploads SET received = \(upload.received), expires_at = \(upload.expiresAt)
            WHERE id = \(upload.id)
            """, logger: tx.logger)
    }

    /// The bytes received of `upload`, in order.
    func bytes(of upload: Upload) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(upload.length))
        let chunks = try await client.fetch(
            """
            SELECT data FROM printing.upload_chunks WHERE upload_id = \(upload.id) ORDER BY start_offset
            """, logger: logger)
        for try await chunk in chunks.decode(Data.self) { bytes += chunk }
        return bytes
    }

    /// Deletes upload `id` and its chunks.
    func delete(_ id: UUID) async throws {
        try await client.fetch("DELETE FROM printing.uploads WHERE id = \(id)", logger: logger)
    }

    /// Links upload `id` to its image and drops its chunks.
    func finish(_ id: UUID, image: UUID, in tx: Transaction) async throws {
        try await tx.connection.fetch(
            "UPDATE printing.uploads SET image_id = \(image) WHERE id = \(id)", logger: tx.logger)
        try await tx.connection.fetch("DELETE FROM printing.upload_chunks WHERE upload_id = \(id)", logger: tx.logger)
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
}
