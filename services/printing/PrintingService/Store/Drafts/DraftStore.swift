import Contract
import Foundation
import Logging
import PostgresNIO
import PrintingContract
import Store

/// The saved postcards of `printing.drafts`, one owner's at a time. A change or delete names the
/// revisions it may replace, checked inside the statement that writes.
public struct DraftStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Drafts in `client`.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The part of a draft kept as JSON.
    struct Stored: Codable {
        var edits: [JSONValue]?
        var greeting: String?
        var size: String?
        var recipients: [Printing.DraftRecipient]
    }

    /// Stores `content` (already checked) as a new draft of `owner`'s at revision 1.
    func insert(_ content: Printing.DraftContent, owner: UUID, at now: Date) async throws -> Printing.Draft {
        let rows = try await client.fetch(
            """
            INSERT INTO printing.drafts (id, owner_id, kind, image_id, content, revision, created_at, updated_at)
            VALUES (\(UUID()), \(owner), \(content.kind.rawValue), \(content.imageId.flatMap(UUID.init(uuidString:))),
                    \(try Self.json(content))::text::jsonb, 1, \(now), \(now))
            RETURNING \(unescaped: Self.columns)
            """, logger: logger)
        guard let draft = try await Self.first(rows) else {
            throw ServiceError(.internal, "a new draft was not returned")
        }
        return draft
    }

    /// `owner`'s draft `id`, if there is one.
    func find(_ id: UUID, owner: UUID) async throws -> Printing.Draft? {
        try await Self.first(
            try await client.fetch(
                "SELECT \(unescaped: Self.columns) FROM printing.drafts WHERE id = \(id) AND owner_id = \(owner)",
                logger: logger))
    }

    /// Up to `limit` of `owner`'s drafts before the key `before`, newest first.
    func page(of owner: UUID, before: KeysetCursor?, limit: Int) async throws -> [Printing.Draft] {
        let rows = try await client.fetch(
            """
            SELECT \(unescaped: Self.columns) FROM printing.drafts
            WHERE owner_id = \(owner)
              AND (\(before?.micros)::bigint IS NULL
                   OR (created_at, id) < ('epoch'::timestamptz + \(before?.micros)::bigint * interval '1 microsecond',
                                          \(before?.id)::uuid))
            ORDER BY created_at DESC, id DESC
            LIMIT \(limit)
            """, logger: logger)
        var drafts: [Printing.Draft] = []
        for try await row in rows { drafts.append(try Self.draft(row)) }
        return drafts
    }

    /// Replaces the content of `owner`'s draft `id` and moves it to the next revision when its
    /// revision is one `precondition` names; nil when it is not (or there is no such draft).
    func replace(
        _ id: UUID, owner: UUID, with content: Printing.DraftContent, if precondition: Printing.DraftPrecondition,
        at now: Date
    ) async throws -> Printing.Draft? {
        let (any, revisions) = Self.binds(precondition)
        let rows = try await client.fetch(
            """
            UPDATE printing.drafts
            SET kind = \(content.kind.rawValue), image_id = \(content.imageId.flatMap(UUID.init(uuidString:))),
                content = \(try Self.json(content))::text::jsonb, revision = revision + 1, updated_at = \(now)
            WHERE id = \(id) AND owner_id = \(owner) AND (\(any) OR revision = ANY(\(revisions)::bigint[]))
            RETURNING \(unescaped: Self.columns)
            """, logger: logger)
        return try await Self.first(rows)
    }

    /// Deletes `owner`'s draft `id` when its revision is one `precondition` names; false when it
    /// is not (or there is no such draft).
    func delete(_ id: UUID, owner: UUID, if precondition: Printing.DraftPrecondition) async throws -> Bool {
        let (any, revisions) = Self.binds(precondition)
        let rows = try await client.fetch(
            """
            DELETE FROM printing.drafts
            WHERE id = \(id) AND owner_id = \(owner) AND (\(any) OR revision = ANY(\(revisions)::bigint[]))
            RETURNING id
            """, logger: logger)
        for try await _ in rows { return true }
        return false
    }

    /// The revision of `owner`'s draft `id`, if there is one.
    func revision(of id: UUID, owner: UUID) async throws -> Int64? {
        let rows = try await client.fetch(
            "SELECT revision FROM printing.drafts WHERE id = \(id) AND owner_id = \(owner)", logger: logger)
        for try await revision in rows.decode(Int64.self) { return revision }
        return nil
    }

    static func json(_ content: Printing.DraftContent) throws -> String {
        let stored = Stored(
            edits: content.edits, greeting: content.greeting, size: content.size, recipients: content.recipients ?? [])
        return String(decoding: try Wire.makeEncoder().encode(stored), as: UTF8.self)
    }

    static func binds(_ precondition: Printing.DraftPrecondition) -> (Bool, [Int64]) {
        switch precondition {
        case .any: (true, [])
        case .revisions(let revisions): (false, revisions)
        }
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
