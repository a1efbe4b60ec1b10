import Contract
import Foundation
import RoutingContract
import ServiceKit
import Store

/// Campus events: admin-maintained, listed upcoming, and ranked for a student by what concerns
/// them.
public struct EventHandler: Sendable {
    let events: CampusEventStore
    let venues: VenueStore
    let timetable: TimetableHandler
    let clock: any WallClock

    public init(events: CampusEventStore, venues: VenueStore, timetable: TimetableHandler, clock: any WallClock) {
        self.events = events
        self.venues = venues
        self.timetable = timetable
        self.clock = clock
    }

    /// `list_events`: upcoming events, soonest first, by keyset pages.
    func list(_ request: Routing.ListEvents.Request, _ context: OperationContext) async throws
        -> Routing.ListEvents.Reply
    {
        let limit = try Routing.ListEvents.pageSize.limit(request.limit)
        if let kind = request.kind, !Routing.eventKinds.contains(kind) {
            throw ServiceError.invalidArgument("kind must be sport or cultural", field: "kind")
        }
        let venue = try request.venueId.map { try VenueRules.uuid($0, field: "venueId", what: "venue") }
        let after = try KeysetCursor.parse(request.cursor).map { (micros: $0.micros, id: $0.id) }
        let page = try await events.upcoming(
            kind: request.kind, venue: venue, now: clock.now(), before: request.before, after: after,
            limit: limit + 1)
        return .init(fetched: page, limit: limit) { KeysetCursor.text(at: $0.startsAt, id: $0.id) }
    }

    /// `create_event` (admin).
    func create(_ request: Routing.EventDraft, _ context: OperationContext) async throws -> Routing.CampusEvent {
        _ = try context.requireRole(.admin)
        let draft = try EventRules.validated(request)
        let venue = try await eventVenue(draft)
        return try await events.create(draft, venue: venue, id: UUID(), now: clock.now())
    }

    /// `update_event` (admin).
    func update(_ request: Routing.EventUpdate, _ context: OperationContext) async throws -> Routing.CampusEvent {
        _ = try context.requireRole(.admin)
        let id = try VenueRules.uuid(request.id, field: "id", what: "event")
        let draft = try EventRules.validated(request.body)
        let venue = try await eventVenue(draft)
        guard let event = try await events.update(id: id, with: draft, venue: venue, now: clock.now())
        else { throw ServiceError.notFound("no event \(request.id)") }
        return event
    }

    /// `delete_event` (admin).
    func delete(_ request: Routing.DeleteEvent.Request, _ context: OperationContext) async throws -> Empty {
        _ = try context.requireRole(.admin)
        guard try await events.delete(id: try VenueRules.uuid(request.id, field: "id", what: "event")) else {
            throw ServiceError.notFound("no event \(request.id)")
        }
        return Empty()
    }

    /// `my_events`: upcoming events, those concerning the caller first.
    func mine(_ request: Routing.MyEvents.Request, _ context: OperationContext) async throws
        -> Routing.MyEvents.Reply
    {
        let limit = try Routing.MyEvents.pageSize.limit(request.limit)
        return try await timetable.myEvents(user: try context.userId(), events: events, now: clock.now(), limit: limit)
    }

    /// The venue an event draft names, which must exist.
    func eventVenue(_ draft: Routing.EventDraft) async throws -> UUID? {
        guard let text = draft.venueId else { return nil }
        let id = try VenueRules.uuid(text, field: "venueId", what: "venue")
        guard try await venues.venue(id: id) != nil else {
            throw ServiceError(.invalidArgument, "no venue \(text)", details: ["field": "venueId"])
        }
        return id
    }
}
