import CivicContract
import Contract
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import Store

/// Imports a file of the local format (``LocalFormat``) for a body without an API: checked
/// whole first, then applied in one transaction (all or nothing) through the importer's own
/// upserts, with `civic.bill_introduced` for each new item appended in that transaction and
/// announced after it commits. The same file again changes nothing.
public struct LocalImporter: Sendable {
    let client: PostgresClient
    let writer: ImportWriter
    let positions: StatedPositionStore
    let events: EventPublisher
    let clock: any WallClock
    let logger: Logger

    public init(client: PostgresClient, events: EventPublisher, clock: any WallClock, logger: Logger) {
        self.client = client
        self.writer = ImportWriter(logger: logger)
        self.positions = StatedPositionStore(client: client, logger: logger)
        self.events = events
        self.clock = clock
        self.logger = logger
    }

    /// `import_local`, for `civic_editor`s.
    public func apply(_ file: Civic.LocalFile, _ context: OperationContext) async throws -> Civic.ImportLocal.Reply {
        _ = try context.requireRole(.civicEditor)
        return try await apply(file)
    }

    /// Applies `file`.
    public func apply(_ file: Civic.LocalFile) async throws -> Civic.ImportLocal.Reply {
        let records = try LocalFormat.records(file)
        let now = clock.now()
        let (reply, appended) = try await client.transaction(logger: logger) { connection in
            var reply = Civic.ImportLocal.Reply(billsNew: 0, billsChanged: 0, billsUnchanged: 0, meetings: 0)
            let jurisdiction =
                records.bills.first?.jurisdiction ?? records.meetings.first?.jurisdiction
                ?? records.people.first?.jurisdiction
            if let jurisdiction { try await writer.jurisdiction(jurisdiction, now: now, on: connection) }
            // Members first: the items' roll calls and the positions name them.
            for person in records.people where try await writer.person(person, on: connection) { reply.members += 1 }
            let written = try await writer.bills(records.bills, now: now, on: connection)
            reply.billsNew = written.new
            reply.billsChanged = written.changed
            reply.billsUnchanged = written.unchanged
            for record in records.meetings where try await writer.meeting(record, on: connection) {
                reply.meetings += 1
            }
            for position in records.positions {
                switch try await positions.write(position, now: now, on: connection) {
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
                ? [] : try await events.append(written.introduced, requestId: nil, on: connection, logger: logger)
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
