import Contract
import Foundation
import Logging
import PostgresNIO
import PrintingContract
import Store

/// The saved postcards of `printing.drafts`: create, list, read, and change or delete under the
/// revision an `If-Match` names, checked inside the same SQL statement that writes, so that of two
/// writers holding one revision exactly one wins and the other gets `precondition_failed`.
public struct DraftBook: Sendable {
    let client: PostgresClient
    let images: ImageLibrary
    let clock: any WallClock
    let logger: Logger

    /// Drafts in `client`; front images are checked against `images` (the owner's uploads and the gallery).
    public init(client: PostgresClient, images: ImageLibrary, clock: any WallClock, logger: Logger) {
        self.client = client
        self.images = images
        self.clock = clock
        self.logger = logger
    }

    /// The part of a draft kept as JSON.
    struct Stored: Codable {
        var edits: [JSONValue]?
        var greeting: String?
        var size: String?
        var recipients: [Printing.DraftRecipient]
    }

    /// Saves a new draft of `actor`'s at revision 1.
    public func create(_ content: Printing.DraftContent, actor: Actor) async throws -> Printing.Draft {
        let owner = try Self.owner(actor)
        let (content, stored) = try await prepared(content, actor: actor)
        let id = UUID()
        let now = clock.now()
        let rows = try await client.fetch(
            """
            INSERT INTO printing.drafts (id, owner_id, kind, image_id, content, revision, created_at, updated_at)
            VALUES (\(id), \(owner), \(content.kind.rawValue), \(content.imageId.flatMap(UUID.init(uuidString:))),
                    \(stored)::text::jsonb, 1, \(now), \(now))
            RETURNING \(unescaped: Self.columns)
            """, logger: logger)
        guard let draft = try await Self.first(rows) else {
            throw ServiceError(.internal, "a new draft was not returned")
        }
        return draft
    }

    /// `actor`'s draft `id`; anyone else's, or none, is `not_found`.
    public func get(_ id: String, actor: Actor) async throws -> Printing.Draft {
        let owner = try Self.owner(actor)
        guard let uuid = UUID(uuidString: id) else { throw ServiceError.notFound("no such draft") }
        let rows = try await client.fetch(
            "SELECT \(unescaped: Self.columns) FROM printing.drafts WHERE id = \(uuid) AND owner_id = \(owner)",
            logger: logger)
        guard let draft = try await Self.first(rows) else { throw ServiceError.notFound("no such draft") }
        return draft
    }

    /// A page of `actor`'s drafts, newest first.
    public func list(_ request: PageRequest, actor: Actor) async throws -> Page<Printing.Draft> {
        let owner = try Self.owner(actor)
        let limit = try Printing.ListDrafts.pageSize.limit(request.limit)
        let before = try KeysetCursor.parse(request.cursor)
        let rows = try await client.fetch(
            """
            SELECT \(unescaped: Self.columns) FROM printing.drafts
            WHERE owner_id = \(owner)
              AND (\(before?.micros)::bigint IS NULL
                   OR (created_at, id) < ('epoch'::timestamptz + \(before?.micros)::bigint * interval '1 microsecond',
                                          \(before?.id)::uuid))
            ORDER BY created_at DESC, id DESC
            LIMIT \(limit + 1)
            """, logger: logger)
        var drafts: [Printing.Draft] = []
        for try await row in rows { drafts.append(try Self.draft(row)) }
        return Page(fetched: drafts, limit: limit) { KeysetCursor.text(at: $0.createdAt, id: $0.id) }
    }

    /// Replaces the content of `actor`'s draft when `If-Match` names its current revision.
    public func update(_ request: Printing.UpdateDraft.Request, actor: Actor) async throws -> Printing.Draft {
        let owner = try Self.owner(actor)
        let precondition = try Self.precondition(request.ifMatch)
        guard let uuid = UUID(uuidString: request.id) else { throw ServiceError.notFound("no such draft") }
        let (content, stored) = try await prepared(request.draft, actor: actor)
        let (any, revisions) = Self.binds(precondition)
        let rows = try await client.fetch(
            """
            UPDATE printing.drafts
            SET kind = \(content.kind.rawValue), image_id = \(content.imageId.flatMap(UUID.init(uuidString:))),
                content = \(stored)::text::jsonb, revision = revision + 1, updated_at = \(clock.now())
            WHERE id = \(uuid) AND owner_id = \(owner) AND (\(any) OR revision = ANY(\(revisions)::bigint[]))
            RETURNING \(unescaped: Self.columns)
            """, logger: logger)
        if let draft = try await Self.first(rows) { return draft }
        throw try await missed(uuid, owner: owner)
    }

    /// Deletes `actor`'s draft when `If-Match` names its current revision.
    public func delete(_ request: Printing.DeleteDraft.Request, actor: Actor) async throws {
        let owner = try Self.owner(actor)
        let precondition = try Self.precondition(request.ifMatch)
        guard let uuid = UUID(uuidString: request.id) else { throw ServiceError.notFound("no such draft") }
        let (any, revisions) = Self.binds(precondition)
        let rows = try await client.fetch(
            """
            DELETE FROM printing.drafts
            WHERE id = \(uuid) AND owner_id = \(owner) AND (\(any) OR revision = ANY(\(revisions)::bigint[]))
            RETURNING id
            """, logger: logger)
        for try await _ in rows { return }
        throw try await missed(uuid, owner: owner)
    }

    /// Why a conditional write touched no row: the draft has another revision now (412), or is
    /// not the caller's (404).
    func missed(_ id: UUID, owner: UUID) async throws -> ServiceError {
        let rows = try await client.fetch(
            "SELECT revision FROM printing.drafts WHERE id = \(id) AND owner_id = \(owner)", logger: logger)
        for try await revision in rows.decode(Int64.self) {
            return ServiceError(
                .preconditionFailed,
                "the draft was changed since you read it (it is now at \(Printing.Draft.entityTag(revision: revision))); "
                    + "read it again, then retry with its ETag in If-Match",
                details: ["etag": .string(Printing.Draft.entityTag(revision: revision))])
        }
        return ServiceError.notFound("no such draft")
    }

    /// The checked content and its JSON; the front image must be one `actor` may use.
    func prepared(_ content: Printing.DraftContent, actor: Actor) async throws -> (Printing.DraftContent, String) {
        let content = try DraftRules.checked(content)
        if let imageId = content.imageId {
            do {
                _ = try await images.info(imageId, actor: actor)
            } catch let error as ServiceError where error.code == .notFound {
                throw ServiceError(
                    .notFound, "no such image among your uploads or the gallery", details: ["field": "imageId"])
            }
        }
        let stored = Stored(
            edits: content.edits, greeting: content.greeting, size: content.size, recipients: content.recipients ?? [])
        return (content, String(decoding: try Wire.makeEncoder().encode(stored), as: UTF8.self))
    }

    static func precondition(_ ifMatch: String?) throws(ServiceError) -> Printing.DraftPrecondition {
        guard let precondition = Printing.DraftPrecondition(ifMatch: ifMatch) else {
            throw Printing.DraftPrecondition.missing
        }
        return precondition
    }

    static func binds(_ precondition: Printing.DraftPrecondition) -> (Bool, [Int64]) {
        switch precondition {
        case .any: (true, [])
        case .revisions(let revisions): (false, revisions)
        }
    }

    static func owner(_ actor: Actor) throws -> UUID {
        guard let owner = UUID(uuidString: actor.userId) else { throw ServiceError(.unauthenticated, "no user id") }
        return owner
    }

    static let columns = "id, kind, image_id, content::text, revision, created_at, updated_at"

    static func first(_ rows: FetchedRows) async throws -> Printing.Draft? {
        for try await row in rows { return try draft(row) }
        return nil
    }

    static func draft(_ row: PostgresRow) throws -> Printing.Draft {
        let (id, kind, image, content, revision, created, updated) = try row.decode(
            (UUID, String, UUID?, String, Int64, Date, Date).self)
        let stored = try Wire.makeDecoder().decode(Stored.self, from: Data(content.utf8))
        return Printing.Draft(
            id: id.uuidString.lowercased(), kind: Printing.DraftKind(rawValue: kind) ?? .postcard,
            imageId: image?.uuidString.lowercased(), edits: stored.edits, greeting: stored.greeting, size: stored.size,
            recipients: stored.recipients, revision: revision, createdAt: created, updatedAt: updated)
    }
}
