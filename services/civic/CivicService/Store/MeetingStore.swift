import CivicContract
import Contract
import Foundation
import Logging
import PostgresNIO

/// The `civic.meetings` table: bodies' meetings with their agendas, linked to bills at read.
public struct MeetingStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    static let columns = """
        m.id, m.jurisdiction_id, j.name, j.level, m.body, m.name, m.starts_at, m.ends_at, m.location, m.status,
        m.detail::text
        """
    typealias Row = (UUID, String, String, String, String, String, Date, Date?, String?, String, String)

    /// Meetings starting in `[from, to)` soonest first, after `cursor`, `limit + 1` of them.
    func list(jurisdiction: String?, from: Date?, to: Date?, after cursor: KeysetCursor?, limit: Int) async throws
        -> [(meeting: Civic.Meeting, startsAt: Date)]
    {
        let rows = try await client.fetch(
            """
            SELECT \(unescaped: Self.columns)
            FROM civic.meetings m JOIN civic.jurisdictions j ON j.id = m.jurisdiction_id
            WHERE (\(jurisdiction)::text IS NULL OR m.jurisdiction_id = \(jurisdiction))
              AND (\(from)::timestamptz IS NULL OR m.starts_at >= \(from))
              AND (\(to)::timestamptz IS NULL OR m.starts_at < \(to))
              AND (\(cursor?.micros)::bigint IS NULL
                   OR (m.starts_at, m.id)
                      > ('epoch'::timestamptz + \(cursor?.micros)::bigint * interval '1 microsecond', \(cursor?.id)::uuid))
            ORDER BY m.starts_at, m.id LIMIT \(limit + 1)
            """, logger: logger)
        var found: [(Row)] = []
        for try await row in rows.decode(Row.self) { found.append(row) }
        return try await meetings(found)
    }

    /// The first meeting of `body` (case-insensitive) starting at or after `now`.
    func next(body: String, now: Date) async throws -> Civic.Meeting? {
        let rows = try await client.fetch(
            """
            SELECT \(unescaped: Self.columns)
            FROM civic.meetings m JOIN civic.jurisdictions j ON j.id = m.jurisdiction_id
            WHERE lower(m.body) = lower(\(body)) AND m.starts_at >= \(now) AND m.status <> 'cancelled'
            ORDER BY m.starts_at, m.id LIMIT 1
            """, logger: logger)
        var found: [Row] = []
        for try await row in rows.decode(Row.self) { found.append(row) }
        return try await meetings(found).first?.meeting
    }

    func meetings(_ rows: [Row]) async throws -> [(meeting: Civic.Meeting, startsAt: Date)] {
        let details = try rows.map { try JSONDecoder().decode(MeetingRecord.Detail.self, from: Data($0.10.utf8)) }
        let sourceIds = Array(Set(details.flatMap { $0.agenda.flatMap(\.billSourceIds) }))
        var bills: [String: String] = [:]
        if !sourceIds.isEmpty {
            let found = try await client.fetch(
                "SELECT source_id, id FROM civic.bills WHERE source_id = ANY(\(sourceIds))", logger: logger)
            for try await (source, id) in found.decode((String, UUID).self) { bills[source] = id.uuidString.lowercased() }
        }
        return zip(rows, details).map { row, detail in
            let meeting = Civic.Meeting(
                id: row.0.uuidString.lowercased(),
                jurisdiction: .init(id: row.1, name: row.2, level: Civic.Level(rawValue: row.3) ?? .federal),
                body: row.4, name: row.5, startsAt: FeedDate.text(row.6), endsAt: row.7.map(FeedDate.text),
                location: row.8, status: row.9,
                agenda: detail.agenda.map {
                    .init(order: $0.order, description: $0.description, billIds: $0.billSourceIds.compactMap { bills[$0] })
                },
                documents: detail.documents, sources: detail.sources)
            return (meeting, row.6)
        }
    }
}
