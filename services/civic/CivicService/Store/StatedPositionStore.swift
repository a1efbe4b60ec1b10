import CivicContract
import Contract
import Foundation
import Logging
import PostgresNIO
import Store

/// `civic.stated_positions`: what people stated about bills, from local files (by source ids, in
/// the file's transaction) and from editors (by ids).
public struct StatedPositionStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// What writing a file's position did.
    public enum Outcome: Sendable, Equatable {
        case written
        case unchanged
        /// The file names an item civic does not hold.
        case noBill
    }

    /// Inserts or updates a file's position (its member was written in the same transaction).
    public func write(_ record: StatedPositionRecord, now: Date, in tx: Transaction) async throws
        -> Outcome
    {
        let connection = tx.connection
        let rows = try await connection.fetch(
            """
            INSERT INTO civic.stated_positions (person_id, bill_id, position, stated_on, source_url, checked_on,
                entered_by, entered_at)
            SELECT p.id, b.id, \(record.position), \(record.statedOn)::date, \(record.sourceUrl),
                \(record.checkedOn)::date, 'file', \(now)
            FROM civic.people p, civic.bills b
            WHERE p.source_id = \(record.personSourceId) AND b.source_id = \(record.billSourceId)
            ON CONFLICT (person_id, bill_id) DO UPDATE SET position = excluded.position,
                stated_on = excluded.stated_on, source_url = excluded.source_url, checked_on = excluded.checked_on,
                entered_by = excluded.entered_by, entered_at = excluded.entered_at
            WHERE (civic.stated_positions.position, civic.stated_positions.stated_on,
                civic.stated_positions.source_url, civic.stated_positions.checked_on)
                IS DISTINCT FROM (excluded.position, excluded.stated_on, excluded.source_url, excluded.checked_on)
            RETURNING person_id
            """, logger: logger)
        for try await _ in rows.decode(UUID.self) { return .written }
        let bill = try await connection.fetch(
            "SELECT count(*) FROM civic.bills WHERE source_id = \(record.billSourceId)", logger: logger)
        for try await count in bill.decode(Int.self) where count == 0 { return .noBill }
        return .unchanged
    }

    /// An editor's position on `bill` for `person`: the stored position and whether it is new;
    /// `not_found` naming the person or the bill civic does not hold.
    public func set(
        person: UUID, bill: UUID, _ checked: StatedPositionRules.Checked, enteredBy: String, now: Date
    ) async throws -> (Civic.Position, created: Bool) {
        let found = try await client.fetch(
            """
            SELECT b.identifier, b.title, EXISTS (SELECT 1 FROM civic.people WHERE id = \(person))
            FROM civic.bills b WHERE b.id = \(bill)
            """, logger: logger)
        var billRow: (String, String, Bool)?
        for try await row in found.decode((String, String, Bool).self) { billRow = row }
        guard let (identifier, title, personExists) = billRow else {
            throw ServiceError.notFound("no bill \(bill.uuidString.lowercased())")
        }
        guard personExists else { throw ServiceError.notFound("no person \(person.uuidString.lowercased())") }
        let rows = try await client.fetch(
            """
            INSERT INTO civic.stated_positions (person_id, bill_id, position, stated_on, source_url, checked_on,
                entered_by, entered_at)
            VALUES (\(person), \(bill), \(checked.position), \(checked.statedOn)::date, \(checked.sourceUrl),
                \(checked.checkedOn)::date, \(enteredBy), \(now))
            ON CONFLICT (person_id, bill_id) DO UPDATE SET position = excluded.position,
                stated_on = excluded.stated_on, source_url = excluded.source_url, checked_on = excluded.checked_on,
                entered_by = excluded.entered_by, entered_at = excluded.entered_at
            RETURNING (xmax = 0)
            """, logger: logger)
        var created = false
        for try await inserted in rows.decode(Bool.self) { created = inserted }
        let position = Civic.Position(
            billId: bill.uuidString.lowercased(), billIdentifier: identifier, billTitle: title, kind: "stated",
            position: checked.position, date: checked.statedOn, sourceUrl: checked.sourceUrl,
            checkedOn: checked.checkedOn)
        return (position, created)
    }

    /// Deletes `person`'s stated position on `bill`; false when there was none.
    public func delete(person: UUID, bill: UUID) async throws -> Bool {
        let rows = try await client.fetch(
            """
            DELETE FROM civic.stated_positions WHERE person_id = \(person) AND bill_id = \(bill) RETURNING person_id
            """, logger: logger)
        for try await _ in rows.decode(UUID.self) { return true }
        return false
    }
}
