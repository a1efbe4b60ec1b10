import CivicContract
import Contract
import Foundation
import Logging
import ServiceKit
import Store

/// Editors' stated positions: a `civic_editor` enters, corrects or removes what a person stated
/// about a bill, with its source and the day it was checked.
public struct StatedPositionHandler: Sendable {
    let positions: StatedPositionStore
    let clock: any WallClock
    let logger: Logger

    public init(positions: StatedPositionStore, clock: any WallClock, logger: Logger) {
        self.positions = positions
        self.clock = clock
        self.logger = logger
    }

    /// `set_stated_position`.
    public func set(_ request: Civic.SetStatedPosition.Request, _ context: OperationContext) async throws
        -> Civic.SetStatedPosition.Reply
    {
        let editor = try context.requireRole(.civicEditor)
        let person = try BillQuery.id(request.personId, what: "person")
        let bill = try BillQuery.id(request.billId, what: "bill")
        let now = clock.now()
        let checked = try StatedPositionRules.checked(
            position: request.position, statedOn: request.statedOn, sourceUrl: request.sourceUrl,
            checkedOn: request.checkedOn, today: String(FeedDate.text(now).prefix(10)))
        let (position, created) = try await positions.set(
            person: person, bill: bill, checked, enteredBy: editor.userId, now: now)
        logger.info(
            "stated position entered",
            metadata: [
                "personId": "\(request.personId)", "billId": "\(request.billId)", "editor": "\(editor.userId)",
                "created": "\(created)",
            ])
        return .init(position: position, created: created)
    }

    /// `delete_stated_position`.
    public func delete(_ request: Civic.DeleteStatedPosition.Request, _ context: OperationContext) async throws
        -> Empty
    {
        _ = try context.requireRole(.civicEditor)
        let person = try BillQuery.id(request.personId, what: "person")
        let bill = try BillQuery.id(request.billId, what: "bill")
        guard try await positions.delete(person: person, bill: bill) else {
            throw ServiceError.notFound("person \(request.personId) has no stated position on bill \(request.billId)")
        }
        return Empty()
    }
}
