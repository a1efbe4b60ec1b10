import CivicContract
import Contract
import Foundation
import Logging
import PostgresNIO

/// The `civic.bills` table and what hangs off it (changes, member votes, topics, highlights):
/// the lists and detail pages read here; the importers write through ``ImportedRecordStore``.
public struct BillStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The columns a ``Civic/BillSummary`` is read from, in ``summary(_:)``'s order.
    static let summaryColumns = """
        b.id, b.jurisdiction_id, j.name, b.level, b.session, b.identifier, b.title, b.summary, b.subjects,
        b.status, b.introduced_on::text, b.latest_action_on::text, b.latest_action, b.source_updated_at,
        b.activity_at, b.introduced_at
        """

    typealias SummaryRow = (
        UUID, String, String, String, String, String, String, String?, [String], String, String?, String?, String?,
        Date, Date, Date
    )

    /// A summary and its two sort keys.
    struct Listed: Codable, Sendable, Equatable {
        var summary: Civic.BillSummary
        var activityAt: Date
        var introducedAt: Date
    }

    static func listed(_ row: SummaryRow) -> Listed {
        let (id, jurisdictionId, jurisdictionName, level, session, identifier, title, summary, subjects, status) = (
            row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8, row.9
        )
        return Listed(
            summary: .init(
                id: id.uuidString.lowercased(),
                jurisdiction: .init(
                    id: jurisdictionId, name: jurisdictionName, level: Civic.Level(rawValue: level) ?? .federal),
                session: session, identifier: identifier, title: title, summary: summary, subjects: subjects,
                status: Civic.BillStatus(rawValue: status) ?? .introduced, introducedOn: row.10,
                latestActionOn: row.11, latestAction: row.12, updatedAt: FeedDate.text(row.13)),
            activityAt: row.14, introducedAt: row.15)
    }

    /// One page of bills matching `filter`, after `cursor`, `limit + 1` rows (the extra one says
    /// there is a next page).
    func list(_ filter: BillFilter, after cursor: KeysetCursor?, limit: Int) async throws -> [Listed] {
        let key = filter.sort == .recent ? "activity_at" : "introduced_at"
        let rows = try await client.fetch(
            """
            SELECT \(unescaped: Self.summaryColumns)
            FROM civic.bills b JOIN civic.jurisdictions j ON j.id = b.jurisdiction_id
            WHERE (\(filter.level?.rawValue)::text IS NULL OR b.level = \(filter.level?.rawValue))
              AND (\(filter.jurisdiction)::text IS NULL OR b.jurisdiction_id = \(filter.jurisdiction))
              AND (\(filter.status?.rawValue)::text IS NULL OR b.status = \(filter.status?.rawValue))
              AND (\(filter.subject)::text IS NULL OR b.subjects @> ARRAY[\(filter.subject)::text])
              AND (\(filter.topicSubjects)::text[] IS NULL OR b.subjects && \(filter.topicSubjects)::text[])
              AND (\(filter.updatedSince)::timestamptz IS NULL OR b.source_updated_at >= \(filter.updatedSince))
              AND (\(filter.query)::text IS NULL
                   OR b.search @@ websearch_to_tsquery('english', \(filter.query))
                   OR \(filter.query) OPERATOR(public.<%) b.search_text)
              AND (\(cursor?.micros)::bigint IS NULL
                   OR (b.\(unescaped: key), b.id)
                      < ('epoch'::timestamptz + \(cursor?.micros)::bigint * interval '1 microsecond', \(cursor?.id)::uuid))
            ORDER BY b.\(unescaped: key) DESC, b.id DESC
            LIMIT \(limit + 1)
            """, logger: logger)
        var items: [Listed] = []
        for try await row in rows.decode(SummaryRow.self) { items.append(Self.listed(row)) }
        return items
    }

    /// The bill `id` with its detail, sponsors and voters linked to civic's people; nil when unknown.
    func bill(_ id: UUID) async throws -> Civic.Bill? {
        let rows = try await client.fetch(
            """
            SELECT \(unescaped: Self.summaryColumns), b.detail::text, b.highlighted
            FROM civic.bills b JOIN civic.jurisdictions j ON j.id = b.jurisdiction_id WHERE b.id = \(id)
            """, logger: logger)
        var found: (Listed, String, Bool)?
        for try await row in rows.decode(
            (
                UUID, String, String, String, String, String, String, String?, [String], String, String?, String?,
                String?, Date, Date, Date, String, Bool
            ).self)
        {
            found = (
                Self.listed((row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8, row.9, row.10, row.11,
                    row.12, row.13, row.14, row.15)), row.16, row.17
            )
        }
        guard let (listed, detailText, highlighted) = found else { return nil }
        let detail = try JSONDecoder().decode(BillRecord.Detail.self, from: Data(detailText.utf8))
        let sourceIds = Set(
            detail.sponsors.compactMap(\.personSourceId) + detail.votes.flatMap { $0.votes.compactMap(\.personSourceId) })
        let people = try await personIds(Array(sourceIds))
        return Civic.Bill(
            summary: listed.summary, actions: detail.actions,
            sponsors: detail.sponsors.map {
                .init(name: $0.name, personId: $0.personSourceId.flatMap { people[$0] }, primary: $0.primary)
            },
            votes: detail.votes.map { vote in
                .init(
                    motion: vote.motion, date: vote.date, result: vote.result, organization: vote.organization,
                    counts: vote.counts,
                    votes: vote.votes.map {
                        .init(name: $0.name, personId: $0.personSourceId.flatMap { people[$0] }, option: $0.option)
                    })
            },
            versions: detail.versions, documents: detail.documents, sources: detail.sources, highlighted: highlighted)
    }

    /// The version of bill `id`'s detail reply; nil when there is no such bill. It changes
    /// whenever the reply would: the bill's row (any write gives it a new `xmin`), its
    /// jurisdiction's row, or the civic people its sponsors and voters link to (a digest of
    /// the links). Read before the detail itself, so a kept reply is never older than its version.
    func detailVersion(_ id: UUID) async throws -> String? {
        let rows = try await client.fetch(
            """
            SELECT b.xmin::text || '/' || j.xmin::text || '/' || md5(coalesce((
                SELECT string_agg(p.source_id || '=' || p.id::text, ',' ORDER BY p.source_id)
                FROM civic.people p
                WHERE p.source_id IN (
                    SELECT jsonb_path_query(b.detail, '$.sponsors[*].personSourceId') #>> '{}'
                    UNION
                    SELECT jsonb_path_query(b.detail, '$.votes[*].votes[*].personSourceId') #>> '{}')), ''))
            FROM civic.bills b JOIN civic.jurisdictions j ON j.id = b.jurisdiction_id WHERE b.id = \(id)
            """, logger: logger)
        for try await version in rows.decode(String.self) { return version }
        return nil
    }

    /// Civic's person ids of the feed's person ids it knows.
    func personIds(_ sourceIds: [String]) async throws -> [String: String] {
        guard !sourceIds.isEmpty else { return [:] }
        let rows = try await client.fetch(
            "SELECT source_id, id FROM civic.people WHERE source_id = ANY(\(sourceIds))", logger: logger)
        var ids: [String: String] = [:]
        for try await (source, id) in rows.decode((String, UUID).self) { ids[source] = id.uuidString.lowercased() }
        return ids
    }

    /// Per level: the bills an editor highlighted, then the most recently active, `perLevel` in all.
    func highlighted(level: Civic.Level, perLevel: Int) async throws -> [Civic.BillSummary] {
        let rows = try await client.fetch(
            """
            SELECT \(unescaped: Self.summaryColumns)
            FROM civic.bills b JOIN civic.jurisdictions j ON j.id = b.jurisdiction_id
            WHERE b.level = \(level.rawValue)
            ORDER BY b.highlighted DESC, b.activity_at DESC, b.id DESC
            LIMIT \(perLevel)
            """, logger: logger)
        var items: [Civic.BillSummary] = []
        for try await row in rows.decode(SummaryRow.self) { items.append(Self.listed(row).summary) }
        return items
    }

    /// Sets the editor's highlight of `id`; false when there is no such bill.
    func setHighlight(_ id: UUID, _ highlighted: Bool) async throws -> Bool {
        let rows = try await client.fetch(
            "UPDATE civic.bills SET highlighted = \(highlighted) WHERE id = \(id) RETURNING id", logger: logger)
        for try await _ in rows.decode(UUID.self) { return true }
        return false
    }

    /// Every topic, by id.
    func topics() async throws -> [Civic.Topic] {
        let rows = try await client.fetch("SELECT id, name, subjects FROM civic.topics ORDER BY id", logger: logger)
        var topics: [Civic.Topic] = []
        for try await (id, name, subjects) in rows.decode((String, String, [String]).self) {
            topics.append(.init(id: id, name: name, subjects: subjects))
        }
        return topics
    }

    /// Every jurisdiction, most local first.
    func jurisdictions() async throws -> [Civic.Jurisdiction] {
        let rows = try await client.fetch("SELECT id, name, level FROM civic.jurisdictions", logger: logger)
        var items: [Civic.Jurisdiction] = []
        for try await (id, name, level) in rows.decode((String, String, String).self) {
            items.append(.init(id: id, name: name, level: Civic.Level(rawValue: level) ?? .federal))
        }
        return items.sorted { ($0.level, $0.name) < ($1.level, $1.name) }
    }
}
