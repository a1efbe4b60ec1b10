import Contract
import Foundation
import PostgresNIO
import PrintingContract
import Store

extension ImageLibrary {
    /// A page of `actor`'s own uploads, newest first.
    public func list(_ request: PageRequest, actor: Actor) async throws -> Page<Printing.ImageInfo> {
        guard let owner = UUID(uuidString: actor.userId) else { throw ServiceError(.unauthenticated, "no user id") }
        let limit = try Printing.ListImages.pageSize.limit(request.limit)
        let before = try KeysetCursor.parse(request.cursor)
        let rows = try await client.fetch(
            """
            SELECT id, sha256, media_type, bytes, width, height, orientation, gps_lat, gps_lon, created_at
            FROM printing.images
            WHERE owner_id = \(owner)
              AND (\(before?.micros)::bigint IS NULL
                   OR (created_at, id) < ('epoch'::timestamptz + \(before?.micros)::bigint * interval '1 microsecond',
                                          \(before?.id)::uuid))
            ORDER BY created_at DESC, id DESC
            LIMIT \(limit + 1)
            """, logger: logger)
        var found: [Printing.ImageInfo] = []
        for try await (id, sha, type, size, width, height, orientation, lat, lon, created) in rows.decode(
            (UUID, String, String, Int64, Int32, Int32, Int16, Double?, Double?, Date).self)
        {
            found.append(
                Printing.ImageInfo(
                    id: id.uuidString.lowercased(), width: Int(width), height: Int(height),
                    gps: lat.flatMap { lat in lon.map { .init(lat: lat, lon: $0) } }, mediaType: type,
                    bytes: Int(size), sha256: sha, orientation: Int(orientation), createdAt: created))
        }
        return Page(fetched: found, limit: limit) { KeysetCursor.text(at: $0.createdAt, id: $0.id) }
    }

    /// Deletes `actor`'s upload `id` unless something uses it: a draft (anyone's), an order's
    /// print job or e-card, or the gallery; then `conflict` with `details.reason` `image_in_use`
    /// and `details.usedBy`. The image row is locked first, so a draft saved at the same moment
    /// (its foreign key waits on that lock) either lands before the check and is seen, or after
    /// the delete and fails. The original file stays: originals are shared by content address,
    /// and a file removed under a concurrent upload of the same bytes would be lost.
    ///
    /// `inOrders` answers whether an order of the owner's names the image (orders asked over the
    /// bus, before the transaction opens): an order placed but not yet a print job or an e-card
    /// here keeps its image too.
    public func delete(
        _ id: String, actor: Actor, inOrders: @Sendable (String) async throws -> Bool = { _ in false }
    ) async throws {
        guard let owner = UUID(uuidString: actor.userId) else { throw ServiceError(.unauthenticated, "no user id") }
        guard let uuid = UUID(uuidString: id) else { throw ServiceError.notFound("no such image") }
        let text = uuid.uuidString.lowercased()
        if try await inOrders(text) {
            throw ServiceError(
                .conflict, "this image is used by an order and is kept",
                details: ["reason": "image_in_use", "usedBy": "order"])
        }
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.fetch(
                """
                SELECT CASE
                    WHEN EXISTS (SELECT 1 FROM printing.drafts d WHERE d.image_id = i.id) THEN 'draft'
                    WHEN EXISTS (SELECT 1 FROM printing.print_jobs p WHERE lower(p.postcard->>'imageId') = \(text))
                      OR EXISTS (SELECT 1 FROM printing.ecards e WHERE lower(e.ecard->>'imageId') = \(text)) THEN 'order'
                    WHEN EXISTS (SELECT 1 FROM printing.gallery g WHERE g.image_id = i.id) THEN 'gallery'
                END
                FROM printing.images i WHERE i.id = \(uuid) AND i.owner_id = \(owner) FOR UPDATE
                """, logger: logger)
            var found = false
            for try await usedBy in rows.decode(String?.self) {
                found = true
                if let usedBy {
                    let user = ["draft": "a saved postcard", "order": "an order"][usedBy] ?? "the gallery"
                    throw ServiceError(
                        .conflict, "this image is used by \(user) and is kept",
                        details: ["reason": "image_in_use", "usedBy": .string(usedBy)])
                }
            }
            guard found else { throw ServiceError.notFound("no such image") }
            try await connection.fetch("DELETE FROM printing.images WHERE id = \(uuid)", logger: logger)
        }
        logger.info("image deleted", metadata: ["image": "\(text)"])
    }
}
