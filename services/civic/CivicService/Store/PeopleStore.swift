import CivicContract
import Contract
import Foundation
import Logging
import PostgresNIO

/// The `civic.people` table, with each person's votes (`civic.member_votes`) and stated
/// positions (`civic.stated_positions`).
public struct PeopleStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    typealias Row = (UUID, String, String, String, String, String, String?, String?, String?, String?)
    static let columns =
        "p.id, p.name, p.jurisdiction_id, j.name, j.level, p.office, p.district, p.chamber, p.party, p.photo_url"

    static func summary(_ row: Row) -> Civic.PersonSummary {
        .init(
            id: row.0.uuidString.lowercased(), name: row.1,
            jurisdiction: .init(id: row.2, name: row.3, level: Civic.Level(rawValue: row.4) ?? .federal),
            office: row.5, district: row.6, chamber: row.7.flatMap(Civic.Chamber.init(rawValue:)), party: row.8,
            photoUrl: row.9)
    }

    /// People by name (then id) after `cursor` (the last name and id), `limit + 1` rows; each
    /// filter applies when given.
    func list(
        jurisdiction: String?, district: String?, chamber: Civic.Chamber?, after cursor: (name: String, id: UUID)?,
        limit: Int
    ) async throws -> [Civic.PersonSummary] {
        let rows = try await client.fetch(
            """
            SELECT \(unescaped: Self.columns)
            FROM civic.people p JOIN civic.jurisdictions j ON j.id = p.jurisdiction_id
            WHERE (\(jurisdiction)::text IS NULL OR p.jurisdiction_id = \(jurisdiction))
              AND (\(district)::text IS NULL OR p.district = \(district))
              AND (\(chamber?.rawValue)::text IS NULL OR p.chamber = \(chamber?.rawValue))
              AND (\(cursor?.name)::text IS NULL OR (p.name, p.id) > (\(cursor?.name), \(cursor?.id ?? UUID())))
            ORDER BY p.name, p.id LIMIT \(limit + 1)
            """, logger: logger)
        var items: [Civic.PersonSummary] = []
        for try await row in rows.decode(Row.self) { items.append(Self.summary(row)) }
        return items
    }

    /// The person `id` with their facts and positions on active bills; nil when unknown.
    func person(_ id: UUID, activeSince: Date) async throws -> Civic.Person? {
        let rows = try await client.fetch(
            """
            SELECT \(unescaped: Self.columns), p.facts::text, p.source_id, p.terms::text, p.sample
            FROM civic.people p JOIN civic.jurisdictions j ON j.id = p.jurisdiction_id WHERE p.id = \(id)
            """, logger: logger)
        var found: (Civic.PersonSummary, String, String, String, Bool)?
        for try await row in rows.decode((UUID, String, String, String, String, String, String?, String?, String?,
            String?, String, String, String, Bool).self)
        {
            found = (
                Self.summary((row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8, row.9)), row.10, row.11,
                row.12, row.13
            )
        }
        guard let (summary, factsText, sourceId, termsText, sample) = found else { return nil }
        let facts = try JSONDecoder().decode([String: Civic.Sourced].self, from: Data(factsText.utf8))
        let terms = try JSONDecoder().decode([Civic.Term].self, from: Data(termsText.utf8))
        var positions: [Civic.Position] = []
        let votes = try await client.fetch(
            """
            SELECT DISTINCT ON (b.id) b.id, b.identifier, b.title, v.option, v.voted_on::text,
                b.detail->'sources'->0->>'url'
            FROM civic.member_votes v JOIN civic.bills b ON b.id = v.bill_id
            WHERE v.person_source_id = \(sourceId) AND b.activity_at >= \(activeSince)
              AND b.status NOT IN ('enacted', 'vetoed', 'failed')
            ORDER BY b.id, v.voted_on DESC
            """, logger: logger)
        for try await (bill, identifier, title, option, day, source) in votes.decode(
            (UUID, String, String, String, String, String?).self)
        {
            positions.append(
                .init(
                    billId: bill.uuidString.lowercased(), billIdentifier: identifier, billTitle: title, kind: "vote",
                    position: option, date: day, sourceUrl: source))
        }
        let stated = try await client.fetch(
            """
            SELECT b.id, b.identifier, b.title, s.position, s.stated_on::text, s.source_url, s.checked_on::text
            FROM civic.stated_positions s JOIN civic.bills b ON b.id = s.bill_id WHERE s.person_id = \(id)
            """, logger: logger)
        for try await (bill, identifier, title, position, day, source, checked) in stated.decode(
            (UUID, String, String, String, String, String, String?).self)
        {
            positions.append(
                .init(
                    billId: bill.uuidString.lowercased(), billIdentifier: identifier, billTitle: title,
                    kind: "stated", position: position, date: day, sourceUrl: source, checkedOn: checked))
        }
        positions.sort { ($0.date, $0.billId, $0.kind) > ($1.date, $1.billId, $1.kind) }
        return .init(
            summary: summary, facts: facts, positions: positions, positionsUnavailable: positions.isEmpty,
            terms: terms.isEmpty ? nil : terms, sample: sample ? true : nil)
    }
}
