import Contract
import Foundation
import RoutingContract
import ServiceKit
import Store

/// The venue operations: search, read, and the admin's create, update and delete; also the
/// route ends requests name by venue or position.
public struct VenueHandler: Sendable {
    let venues: VenueStore
    /// Venues by id for route ends and venue reads (see ``VenueCache``).
    let cache: VenueCache
    let clock: any WallClock

    public init(venues: VenueStore, cache: VenueCache, clock: any WallClock) {
        self.venues = venues
        self.cache = cache
        self.clock = clock
    }

    /// `search_venues`, encoded: a name search alone is kept encoded (see ``VenueCache``); one
    /// near a position is not.
    func search(_ request: Routing.SearchVenues.Request, _ context: OperationContext) async throws -> [UInt8] {
        guard request.nearLat == nil, request.nearLon == nil else {
            return try Wire.encodePayload(try await search(request))
        }
        let key = VenueCache.SearchKey(
            q: request.q, kind: request.kind, limit: request.limit, radius: request.radius, cursor: request.cursor)
        return try await cache.searchReply(key) { try Wire.encodePayload(try await search(request)) }
    }

    func search(_ request: Routing.SearchVenues.Request) async throws -> Routing.SearchVenues.Reply {
        let limit = try Routing.SearchVenues.pageSize.limit(request.limit)
        if let kind = request.kind, !Routing.venueKinds.contains(kind) {
            throw ServiceError(
                .invalidArgument, "unknown venue kind '\(kind)'",
                details: ["field": "kind", "kinds": .array(Routing.venueKinds.map { .string($0) })])
        }
        var near: (lat: Double, lon: Double)?
        if let lat = request.nearLat, let lon = request.nearLon {
            guard (-90...90).contains(lat), (-180...180).contains(lon) else {
                throw ServiceError.invalidArgument("near must be lat,lon in degrees", field: "near")
            }
            near = (VenueRules.degrees(lat), VenueRules.degrees(lon))
        }
        let radius = request.radius ?? (request.q == nil ? 150 : 100_000)
        let offset = try VenueSearchCursor.parse(request)?.offset ?? 0
        let found = try await venues.search(
            query: request.q, kind: request.kind, near: near, radius: radius, offset: offset, limit: limit + 1)
        guard found.count > limit else { return .init(items: found) }
        return .init(
            items: Array(found.prefix(limit)), nextCursor: VenueSearchCursor.after(offset, count: limit, of: request))
    }

    /// `get_venue`.
    func get(_ request: Routing.GetVenue.Request, _ context: OperationContext) async throws -> Routing.Venue {
        try await venue(request.id)
    }

    /// `create_venue` (admin).
    func create(_ request: Routing.VenueDraft, _ context: OperationContext) async throws -> Routing.Venue {
        _ = try context.requireRole(.admin)
        return try await venues.create(try VenueRules.validated(request), id: UUID(), now: clock.now())
    }

    /// `update_venue` (admin).
    func update(_ request: Routing.UpdateVenue.Request, _ context: OperationContext) async throws -> Routing.Venue {
        _ = try context.requireRole(.admin)
        let id = try VenueRules.uuid(request.id)
        defer { cache.forget(id) }
        guard
            let venue = try await venues.update(id: id, with: try VenueRules.validated(request.body), now: clock.now())
        else { throw ServiceError.notFound("no venue \(request.id)") }
        return venue
    }

    /// `delete_venue` (admin).
    func delete(_ request: Routing.DeleteVenue.Request, _ context: OperationContext) async throws -> Empty {
        _ = try context.requireRole(.admin)
        let id = try VenueRules.uuid(request.id)
        defer { cache.forget(id) }
        guard try await venues.delete(id: id) else {
            throw ServiceError.notFound("no venue \(request.id)")
        }
        return Empty()
    }

    /// The venue with the id `id` (from a request), from the cache; 404 when there is none.
    func venue(_ id: String) async throws -> Routing.Venue {
        guard let venue = try await cache.venue(id: try VenueRules.uuid(id)) else {
            throw ServiceError.notFound("no venue \(id)")
        }
        return venue
    }

    /// A route end: the venue it names, else its position.
    func point(_ place: Routing.Place, field: String) async throws -> Routing.Point {
        // Checked even when a venue is given (which then wins), so a nonsense position is never
        // silently taken.
        if let lat = place.lat, !(-90...90).contains(lat) {
            throw ServiceError.invalidArgument("\(field).lat is -90 to 90 degrees", field: "\(field).lat")
        }
        if let lon = place.lon, !(-180...180).contains(lon) {
            throw ServiceError.invalidArgument("\(field).lon is -180 to 180 degrees", field: "\(field).lon")
        }
        if let id = place.venueId {
            let venue = try await venue(id)
            return Routing.Point(lat: venue.lat, lon: venue.lon, level: venue.level)
        }
        guard let lat = place.lat, let lon = place.lon else {
            throw ServiceError.invalidArgument("\(field) needs a venueId, or lat and lon (and level)", field: field)
        }
        return Routing.Point(lat: lat, lon: lon, level: place.level ?? 0)
    }
}
