import Contract
import Foundation
import RoutingContract
import ServiceKit

/// Campus events (admin-maintained, listed upcoming) and users' private pins.
extension RoutingAPI {
    func registerEventsAndPins(on router: inout OperationRouter) {
        router.register(Routing.ListEvents.self) { request, _ in try await listEvents(request) }
        router.register(Routing.CreateEvent.self) { request, context in
            _ = try context.requireRole(.admin)
            let draft = try Self.validated(request)
            let venue = try await eventVenue(draft)
            return try await events.create(draft, venue: venue, id: UUID(), now: clock.now())
        }
        router.register(Routing.UpdateEvent.self) { request, context in
            _ = try context.requireRole(.admin)
            let id = try Self.uuid(request.id, field: "id", what: "event")
            let draft = try Self.validated(request.event)
            let venue = try await eventVenue(draft)
            guard let event = try await events.update(id: id, with: draft, venue: venue, now: clock.now())
            else { throw ServiceError.notFound("no event \(request.id)") }
            return event
        }
        router.register(Routing.DeleteEvent.self) { request, context in
            _ = try context.requireRole(.admin)
            guard try await events.delete(id: try Self.uuid(request.id, field: "id", what: "event")) else {
                throw ServiceError.notFound("no event \(request.id)")
            }
            return Empty()
        }
        router.register(Routing.ListPins.self) { request, context in
            try await Self.pinPage(request, of: try context.userId(), in: pins)
        }
        router.register(Routing.SavePin.self) { request, context in
            let owner = try context.userId()
            guard (-90...90).contains(request.lat), (-180...180).contains(request.lon) else {
                throw ServiceError.invalidArgument("lat/lon out of range", field: "lat")
            }
            try Self.checkLevel(request.level)
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
        router.register(Routing.DeletePin.self) { request, context in
            let owner = try context.userId()
            guard try await pins.delete(id: try Self.uuid(request.id, field: "id", what: "pin"), owner: owner) else {
                throw ServiceError.notFound("you have no pin \(request.id)")
            }
            return Empty()
        }
    }

    func listEvents(_ request: Routing.ListEvents.Request) async throws -> Routing.ListEvents.Reply {
        let limit = try Routing.ListEvents.pageSize.limit(request.limit)
        if let kind = request.kind, !Routing.eventKinds.contains(kind) {
            throw ServiceError.invalidArgument("kind must be sport or cultural", field: "kind")
        }
        let venue = try request.venueId.map { try Self.uuid($0, field: "venueId", what: "venue") }
        let after = try KeysetCursor.parse(request.cursor).map { (micros: $0.micros, id: $0.id) }
        let page = try await events.upcoming(
            kind: request.kind, venue: venue, now: clock.now(), before: request.before, after: after,
            limit: limit + 1)
        return .init(fetched: page, limit: limit) { KeysetCursor.text(at: $0.startsAt, id: $0.id) }
    }

    /// The venue an event draft names, which must exist.
    func eventVenue(_ draft: Routing.EventDraft) async throws -> UUID? {
        guard let text = draft.venueId else { return nil }
        let id = try Self.uuid(text, field: "venueId", what: "venue")
        guard try await venues.venue(id: id) != nil else {
            throw ServiceError(.invalidArgument, "no venue \(text)", details: ["field": "venueId"])
        }
        return id
    }

    static func validated(_ draft: Routing.EventDraft) throws(ServiceError) -> Routing.EventDraft {
        guard !draft.title.trimmingCharacters(in: .whitespaces).isEmpty, draft.title.count <= 200 else {
            throw ServiceError.invalidArgument("title must be 1-200 characters", field: "title")
        }
        guard Routing.eventKinds.contains(draft.kind) else {
            throw ServiceError.invalidArgument("kind must be sport or cultural", field: "kind")
        }
        guard draft.endsAt >= draft.startsAt else {
            throw ServiceError.invalidArgument("endsAt must not be before startsAt", field: "endsAt")
        }
        var draft = draft
        if let modules = draft.modules {
            guard modules.count <= 20 else { throw ServiceError.invalidArgument("at most 20 modules", field: "modules") }
            do { draft.modules = try TimetableBook.normalised(modules) } catch {
                throw ServiceError.invalidArgument(error.message, field: "modules")
            }
        }
        if let faculties = draft.faculties {
            let trimmed = faculties.map { $0.trimmingCharacters(in: .whitespaces) }
            guard trimmed.count <= 20, trimmed.allSatisfy({ (1...200).contains($0.count) }) else {
                throw ServiceError.invalidArgument("at most 20 faculties of 1-200 characters", field: "faculties")
            }
            draft.faculties = trimmed
        }
        return draft
    }

    /// An id from a request, as a UUID.
    static func uuid(_ text: String, field: String, what: String) throws(ServiceError) -> UUID {
        guard let id = UUID(uuidString: text) else {
            throw ServiceError.invalidArgument("not a \(what) id", field: field)
        }
        return id
    }

}

extension RoutingAPI {
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
