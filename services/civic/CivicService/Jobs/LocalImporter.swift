import CivicContract
import Contract
import Foundation
import Logging
import ServiceKit
import Store

/// Imports a file of the local format (``LocalFormat``) for a body without an API: checked
/// whole first, then applied in one transaction (all or nothing) through the importer's own
/// upserts, with `civic.bill_introduced` for each new item appended in that transaction and
/// announced after it commits. The same file again changes nothing.
public struct LocalImporter: Sendable {
    let transactions: Transactions
    let imported: ImportedRecordStore
    let positions: StatedPositionStore
    let events: EventPublisher
    let clock: any WallClock
    let logger: Logger

    public init(
        transactions: Transactions, imported: ImportedRecordStore, positions: StatedPositionStore,
        events: EventPublisher, clock: any WallClock, logger: Logger
    ) {
        self.transactions = transactions
        self.imported = imported
        self.positions = positions
        self.events = events
        self.clock = clock
        self.logger = logger
    }

    /// Applies `file`.
    public func apply(_ file: Civic.LocalFile) async throws -> Civic.ImportLocal.Reply {
        let records = try LocalFormat.records(file)
        let now = clock.now()
        let (reply, appended) = try await transactions.run { tx in
            var reply = Civic.ImportLocal.Reply(billsNew: 0, billsChanged: 0, billsUnchanged: 0, meetings: 0)
            let jurisdiction =
                records.bills.first?.jurisdiction ?? records.meetings.first?.jurisdiction
                ?? records.people.first?.jurisdiction
            if let jurisdiction { try await imported.jurisdiction(jurisdiction, now: now, in: tx) }
            // Members first: the items' roll calls and the positions name them.
            for person in records.people where try await imported.person(person, in: tx) { reply.members += 1 }
            let written = try await imported.bills(records.bills, now: now, in: tx)
            reply.billsNew = written.new
            reply.billsChanged = written.changed
            reply.billsUnchanged = written.unchanged
            for record in records.meetings where try await imported.meeting(record, in: tx) {
                reply.meetings += 1
            }
            for position in records.positions {
                switch try await positions.write(position, now: now, in: tx) {
                case .written: reply.positions += 1
                case .unchanged: break
                case .noBill:
                    // Thrown inside the transaction: nothing of the file is kept.
                    throw ServiceError.invalidArgument(
                        "\(position.itemField) must be the id of an item of this or an earlier file",
                        field: position.itemField)
                }
            }
            let appended =
                written.introduced.isEmpty
                ? [] : try await events.append(written.introduced, requestId: nil, in: tx)
            return (reply, appended)
        }
        for event in appended { events.announce(event) }
        logger.info(
            "local file imported",
            metadata: [
                "jurisdiction": "\(file.jurisdiction.id)", "billsNew": "\(reply.billsNew)",
                "billsChanged": "\(reply.billsChanged)", "meetings": "\(reply.meetings)",
                "members": "\(reply.members)", "positions": "\(reply.positions)", "sample": "\(file.sample == true)",
            ])
        return reply
    }
}
