import CivicContract
import Foundation
import Logging
import PostgresNIO
import Store

/// The importers' writes, each in the one transaction that applies a feed page or a local
/// file: jurisdictions, bills (with what changed and their members' votes), people, meetings.
/// Upserts are keyed by the feed's ids, so applying a page twice changes nothing the second time.
public struct ImportedRecordStore: Sendable {
    let logger: Logger

    public init(logger: Logger) { self.logger = logger }

    /// What an upsert did to a bill.
    public enum BillOutcome: Sendable, Equatable {
        /// Civic had not seen it: stored under `id`.
        case new(id: UUID)
        /// These fields changed.
        case changed(id: UUID, fields: [String])
        case unchanged(id: UUID)
    }

    /// What ``bills(_:now:in:)`` did to a list of bills.
    public struct BillsWritten {
        public var new = 0
        public var changed = 0
        public var unchanged = 0
        /// A `civic.bill_introduced` event for each new bill, to append in the same transaction.
        public var introduced: [(topic: String, payload: any Encodable)] = []
    }

    /// Upserts every bill of `records` (``bill(_:now:on:)``) and counts what each upsert did.
    public func bills(_ records: [BillRecord], now: Date, in tx: Transaction) async throws
        -> BillsWritten
    {
        let connection = tx.connection
        var written = BillsWritten()
        for record in records {
            switch try await bill(record, now: now, on: connection) {
            case .new(let id):
                written.new += 1
                written.introduced.append(
                    (
                        Civic.BillIntroduced.topic,
                        Civic.BillIntroduced(
                            billId: id.uuidString.lowercased(), jurisdictionId: record.jurisdiction.id,
                            level: record.jurisdiction.level, identifier: record.identifier, title: record.title,
                            subjects: record.subjects)
                    ))
            case .changed: written.changed += 1
            case .unchanged: written.unchanged += 1
            }
        }
        return written
    }

    /// Makes sure `jurisdiction` exists with this name and level.
    public func jurisdiction(_ jurisdiction: Civic.Jurisdiction, now: Date, in tx: Transaction)
        async throws
    {
        try await tx.connection.fetch(
            """
            INSERT INTO civic.jurisdictions (id, name, level, updated_at)
            VALUES (\(jurisdiction.id), \(jurisdiction.name), \(jurisdiction.level.rawValue), \(now))
            ON CONFLICT (id) DO UPDATE SET name = excluded.name, level = excluded.level, updated_at = excluded.updated_at
            WHERE (civic.jurisdictions.name, civic.jurisdictions.level) IS DISTINCT FROM (excluded.name, excluded.level)
            """, logger: logger)
    }

    /// Inserts or updates the bill of `record` (locking its row), records what changed, and
    /// replaces its members' votes when they changed.
    func bill(_ record: BillRecord, now: Date, on connection: PostgresConnection) async throws -> BillOutcome {
        let existing = try await connection.fetch(
            "SELECT id, fingerprints::text, status FROM civic.bills WHERE source_id = \(record.sourceId) FOR UPDATE",
            logger: logger)
        var stored: (UUID, String, String)?
        for try await row in existing.decode((UUID, String, String).self) { stored = row }
        let detail = String(decoding: try Fingerprint.encoder.encode(record.detail), as: UTF8.self)
        let fingerprints = String(decoding: try Fingerprint.encoder.encode(record.fingerprints), as: UTF8.self)
        guard let (id, storedText, oldStatus) = stored else {
            let id = UUID()
            let inserted = try await connection.fetch(
                """
                INSERT INTO civic.bills (id, source_id, jurisdiction_id, level, session, identifier, title, summary,
                    subjects, status, introduced_on, latest_action_on, latest_action, source_updated_at, activity_at,
                    introduced_at, detail, fingerprints, imported_at, search_text)
                VALUES (\(id), \(record.sourceId), \(record.jurisdiction.id), \(record.jurisdiction.level.rawValue),
                    \(record.session), \(record.identifier), \(record.title), \(record.summary), \(record.subjects),
                    \(record.status.rawValue), \(record.introducedOn)::date, \(record.latestActionOn)::date,
                    \(record.latestAction), \(record.sourceUpdatedAt), \(record.activityAt), \(record.introducedAt),
                    \(detail)::jsonb, \(fingerprints)::jsonb, \(now), \(record.searchText))
                ON CONFLICT (source_id) DO NOTHING RETURNING id
                """, logger: logger)
            for try await _ in inserted.decode(UUID.self) {
                try await replaceVotes(of: id, record, on: connection)
                return .new(id: id)
            }
            // Another importer stored it between our look and our insert: update that one.
            return try await bill(record, now: now, on: connection)
        }
        let old = try JSONDecoder().decode([String: String].self, from: Data(storedText.utf8))
        let fields = record.changedFields(since: old)
        guard !fields.isEmpty else { return .unchanged(id: id) }
        try await connection.fetch(
            """
            UPDATE civic.bills SET jurisdiction_id = \(record.jurisdiction.id),
                level = \(record.jurisdiction.level.rawValue), session = \(record.session),
                identifier = \(record.identifier), title = \(record.title), summary = \(record.summary),
                subjects = \(record.subjects), status = \(record.status.rawValue),
                introduced_on = \(record.introducedOn)::date, latest_action_on = \(record.latestActionOn)::date,
                latest_action = \(record.latestAction), source_updated_at = \(record.sourceUpdatedAt),
                activity_at = \(record.activityAt), introduced_at = \(record.introducedAt), detail = \(detail)::jsonb,
                fingerprints = \(fingerprints)::jsonb, imported_at = \(now), search_text = \(record.searchText)
            WHERE id = \(id)
            """, logger: logger)
        try await connection.fetch(
            """
            INSERT INTO civic.bill_changes (bill_id, changed_at, fields, old_status, new_status)
            VALUES (\(id), \(now), \(fields), \(oldStatus), \(record.status.rawValue))
            """, logger: logger)
        if fields.contains("votes") { try await replaceVotes(of: id, record, on: connection) }
        return .changed(id: id, fields: fields)
    }

    func replaceVotes(of id: UUID, _ record: BillRecord, on connection: PostgresConnection) async throws {
        try await connection.fetch("DELETE FROM civic.member_votes WHERE bill_id = \(id)", logger: logger)
        var people: [String] = []
        var days: [String] = []
        var motions: [String] = []
        var options: [String] = []
        for vote in record.detail.votes {
            for member in vote.votes {
                guard let person = member.personSourceId, FeedDate.day(vote.date) != nil else { continue }
                people.append(person)
                days.append(vote.date)
                motions.append(vote.motion)
                options.append(member.option)
            }
        }
        guard !people.isEmpty else { return }
        try await connection.fetch(
            """
            INSERT INTO civic.member_votes (bill_id, person_source_id, voted_on, motion, option)
            SELECT \(id), p, d::date, m, o FROM unnest(\(people)::text[], \(days)::text[], \(motions)::text[],
                \(options)::text[]) AS v(p, d, m, o)
            """, logger: logger)
    }

    /// Inserts or updates a person; true when anything was written.
    public func person(_ record: PersonRecord, in tx: Transaction) async throws -> Bool {
        let connection = tx.connection
        let facts = String(decoding: try Fingerprint.encoder.encode(record.facts), as: UTF8.self)
        let terms = String(decoding: try Fingerprint.encoder.encode(record.terms), as: UTF8.self)
        let rows = try await connection.fetch(
            """
            INSERT INTO civic.people (id, source_id, jurisdiction_id, name, office, district, chamber, party, photo_url,
                facts, content_hash, verified_at, terms, sample)
            VALUES (\(UUID()), \(record.sourceId), \(record.jurisdiction.id), \(record.name), \(record.office),
                \(record.district), \(record.chamber?.rawValue), \(record.party), \(record.photoUrl), \(facts)::jsonb,
                \(record.fingerprint), \(record.verifiedAt), \(terms)::jsonb, \(record.sample))
            ON CONFLICT (source_id) DO UPDATE SET jurisdiction_id = excluded.jurisdiction_id, name = excluded.name,
                office = excluded.office, district = excluded.district, chamber = excluded.chamber,
                party = excluded.party,
                photo_url = excluded.photo_url, facts = excluded.facts, content_hash = excluded.content_hash,
                verified_at = excluded.verified_at, terms = excluded.terms, sample = excluded.sample
            WHERE civic.people.content_hash <> excluded.content_hash
            RETURNING id
            """, logger: logger)
        for try await _ in rows.decode(UUID.self) { return true }
        return false
    }

    /// Inserts or updates a meeting; true when anything was written.
    public func meeting(_ record: MeetingRecord, in tx: Transaction) async throws -> Bool {
        let connection = tx.connection
        let detail = String(decoding: try Fingerprint.encoder.encode(record.detail), as: UTF8.self)
        let rows = try await connection.fetch(
            """
            INSERT INTO civic.meetings (id, source_id, jurisdiction_id, body, name, starts_at, ends_at, location,
                status, detail, content_hash)
            VALUES (\(UUID()), \(record.sourceId), \(record.jurisdiction.id), \(record.body), \(record.name),
                \(record.startsAt), \(record.endsAt), \(record.location), \(record.status), \(detail)::jsonb,
                \(record.fingerprint))
            ON CONFLICT (source_id) DO UPDATE SET jurisdiction_id = excluded.jurisdiction_id, body = excluded.body,
                name = excluded.name, starts_at = excluded.starts_at, ends_at = excluded.ends_at,
                location = excluded.location, status = excluded.status, detail = excluded.detail,
                content_hash = excluded.content_hash
            WHERE civic.meetings.content_hash <> excluded.content_hash
            RETURNING id
            """, logger: logger)
        for try await _ in rows.decode(UUID.self) { return true }
        return false
    }
}
