import Contract
import Foundation
import RoutingContract
import ServiceKit
import Store

/// Users' private pins on the campus map.
public struct PinHandler: Sendable {
    let pins: PinStore
    let clock: any WallClock

    public init(pins: PinStore, clock: any WallClock) {
        self.pins = pins
        self.clock = clock
    }

    /// `list_pins`.
    func list(_ request: Routing.ListPins.Request, _ context: OperationContext) async throws -> Routing.ListPins.Reply {
        try await Self.pinPage(request, of: try context.userId(), in: pins)
    }

    /// `save_pin`: at most ``PinStore/maximumPerUser`` per user.
    func save(_ request: Routing.PinDraft, _ context: OperationContext) async throws -> Routing.Pin {
        let owner = try context.userId()
        guard (-90...90).contains(request.lat) else {
            throw ServiceError.invalidArgument("lat is -90 to 90 degrees", field: "lat")
        }
        guard (-180...180).contains(request.lon) else {
            throw ServiceError.invalidArgument("lon is -180 to 180 degrees", field: "lon")
        }
        try VenueRules.checkLevel(request.level)
        let description = request.description.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...500).contains(description.count) else {
            throw ServiceError.invalidArgument("description must be 1-500 characters", field: "description")
        }
        var draft = request
        draft.description = description
        guard let pin = try await pins.save(draft, owner: owner, id: UUID(), now: clock.now()) else {
            throw ServiceError(
                .failedPrecondition, "at most \(PinStore.maximumPerUser) pins; delete one first",
                details: ["reason": "too_many_pins"])
        }
        return pin
    }

    /// `delete_pin`.
    func delete(_ request: Routing.DeletePin.Request, _ context: OperationContext) async throws -> Empty {
        let owner = try context.userId()
        guard try await pins.delete(id: try VenueRules.uuid(request.id, field: "id", what: "pin"), owner: owner) else {
            throw ServiceError.notFound("you have no pin \(request.id)")
        }
        return Empty()
    }

    /// A page of `owner`'s pins, newest first, after the ``KeysetCursor`` of the previous page.
    static func pinPage(_ request: Routing.ListPins.Request, of owner: UUID, in pins: PinStore) async throws
        -> Routing.ListPins.Reply
    {
        let limit = try Routing.ListPins.pageSize.limit(request.limit)
        let before = try KeysetCursor.parse(request.cursor).map { (micros: $0.micros, id: $0.id) }
        let page = try await pins.pins(of: owner, before: before, limit: limit + 1)
        return .init(fetched: page, limit: limit) { KeysetCursor.text(at: $0.createdAt, id: $0.id) }
    }
}
