import Contract
import Foundation
import RoutingContract
import ServiceKit
import Store

/// The handlers of the routing operations: validate, then ask the campus, the navigator or a
/// store.
struct RoutingAPI: Sendable {
    let state: CampusState
    let loader: CampusLoader
    let maps: MapStore
    let venues: VenueStore
    /// Venues by id for route ends and venue reads (see ``VenueCache``).
    let venueCache: VenueCache
    let navigator: Navigator
    let crowdModel: CrowdModel
    let clock: any WallClock
    let events: CampusEventStore
    let pins: PinStore
    let goals: GoalBook
    let timetable: TimetableBook
    let locator = WifiLocator()
    /// Visits already stored by this replica (see ``VisitMemo``).
    let visits = VisitMemo()

    func register(on router: inout OperationRouter) {
        router.registerEncoded(Routing.SearchVenues.self) { request, _ in
            // A name search alone is kept encoded (see `VenueCache`); one near a position is not.
            guard request.nearLat == nil, request.nearLon == nil else {
                return try Wire.encodePayload(try await searchVenues(request))
            }
            let key = VenueCache.SearchKey(
                q: request.q, kind: request.kind, limit: request.limit, radius: request.radius, cursor: request.cursor)
            return try await venueCache.searchReply(key) { try Wire.encodePayload(try await searchVenues(request)) }
        }
        router.register(Routing.GetVenue.self) { request, _ in try await venue(request.id) }
        router.register(Routing.CreateVenue.self) { request, context in
            _ = try context.requireRole(.admin)
            return try await venues.create(try Self.validated(request), id: UUID(), now: clock.now())
        }
        router.register(Routing.UpdateVenue.self) { request, context in
            _ = try context.requireRole(.admin)
            let id = try Self.uuid(request.id)
            defer { venueCache.forget(id) }
            guard let venue = try await venues.update(id: id, with: try Self.validated(request.venue), now: clock.now())
            else { throw ServiceError.notFound("no venue \(request.id)") }
            return venue
        }
        router.register(Routing.DeleteVenue.self) { request, context in
            _ = try context.requireRole(.admin)
            let id = try Self.uuid(request.id)
            defer { venueCache.forget(id) }
            guard try await venues.delete(id: id) else {
                throw ServiceError.notFound("no venue \(request.id)")
            }
            return Empty()
        }
        router.register(Routing.PlanRoute.self) { request, _ in try await planRoute(request) }
        router.register(Routing.Locate.self) { request, context in
            let estimate = try locate(request)
            await recordVisit(estimate, context: context)
            return estimate
        }
        // Served from the in-memory campus (fingerprints, walkway graph, venue cache): they start
        // on the worker's I/O thread (see `OperationRouter.markQuick`). A signed-in student's
        // locate that records a visit waits for PostgreSQL and carries on on the task pool.
        router.markQuick(Routing.SearchVenues.self, Routing.PlanRoute.self, Routing.Locate.self)
        router.register(Routing.ListAccessPoints.self) { _, _ in
            Routing.AccessPoints(accessPoints: try await maps.accessPoints().map(Self.wire))
        }
        router.register(Routing.PutAccessPoint.self) { request, context in
            _ = try context.requireRole(.admin)
            let point = try Self.validated(request)
            try await maps.putAccessPoint(point, now: clock.now())
            try await loader.refresh()
            return Self.wire(point)
        }
        router.register(Routing.DeleteAccessPoint.self) { request, context in
            _ = try context.requireRole(.admin)
            guard try await maps.deleteAccessPoint(bssid: request.bssid.lowercased()) else {
                throw ServiceError.notFound("no access point \(request.bssid)")
            }
            try await loader.refresh()
            return Empty()
        }
        router.register(Routing.ReportOccupancy.self) { request, context in
            _ = try context.requireRole(.wifiController)
            return try await reportOccupancy(request)
        }
        router.register(Routing.GetOccupancy.self) { _, _ in try await occupancy() }
        router.register(Routing.ImportMap.self) { request, context in
            let actor = try context.requireRole(.admin)
            return try await importMap(request, by: actor.userId)
        }
        registerEventsAndPins(on: &router)
        registerGoals(on: &router)
        registerTimetable(on: &router)
        registerNextClass(on: &router)
    }

    func searchVenues(_ request: Routing.SearchVenues.Request) async throws -> Routing.SearchVenues.Reply {
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
            near = (Self.degrees(lat), Self.degrees(lon))
        }
        let radius = request.radius ?? (request.q == nil ? 150 : 100_000)
        let offset = try VenueSearchCursor.parse(request)?.offset ?? 0
        let found = try await venues.search(
            query: request.q, kind: request.kind, near: near, radius: radius, offset: offset, limit: limit + 1)
        guard found.count > limit else { return .init(items: found) }
        return .init(
            items: Array(found.prefix(limit)), nextCursor: VenueSearchCursor.after(offset, count: limit, of: request))
    }

    func venue(_ id: String) async throws -> Routing.Venue {
        guard let venue = try await venueCache.venue(id: try Self.uuid(id)) else {
            throw ServiceError.notFound("no venue \(id)")
        }
        return venue
    }

    func planRoute(_ request: Routing.PlanRoute.Request) async throws -> Routing.Route {
        guard let profile = request.profile.map(RouteProfile.init(rawValue:)) ?? .fastest else {
            throw ServiceError(
                .invalidArgument, "profile must be fastest, accessible or shortest", details: ["field": "profile"])
        }
        let from = try await point(request.from, field: "from")
        let to = try await point(request.to, field: "to")
        return try navigator.route(from: from, to: to, profile: profile)
    }

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

    func locate(_ request: Routing.Locate.Request) throws -> Routing.Locate.Reply {
        guard request.scan.count <= 200 else {
            throw ServiceError.invalidArgument("at most 200 scan entries", field: "scan")
        }
        if let campus = state.snapshot?.campus,
            let estimate = locator.locate(
                scan: request.scan, accessPoint: { campus.accessPointIndex[$0].map { campus.accessPoints[$0] } })
        {
            return estimate
        }
        if let gps = request.gps {
            guard (-90...90).contains(gps.lat), (-180...180).contains(gps.lon) else {
                throw ServiceError.invalidArgument("gps must be lat,lon in degrees", field: "gps")
            }
            return .init(
                lat: gps.lat, lon: gps.lon, level: 0, accuracy: gps.accuracy ?? 20, source: "gps", accessPointsUsed: 0)
        }
        throw ServiceError(
            .failedPrecondition, "outside campus Wi-Fi: the scan has no campus access point; send gps to use GPS",
            details: ["reason": "outside_campus_wifi"])
    }

    func reportOccupancy(_ request: Routing.ReportOccupancy.Request) async throws -> Routing.ReportOccupancy.Reply {
        guard request.counts.count <= 10_000 else {
            throw ServiceError.invalidArgument("at most 10,000 counts per report", field: "counts")
        }
        let known = Set(try await maps.accessPoints().map(\.bssid))
        var accepted: [(bssid: String, devices: Int)] = []
        var unknown: [String] = []
        for count in request.counts {
            guard count.devices >= 0, Int32(exactly: count.devices) != nil else {
                throw ServiceError.invalidArgument("devices is 0 to 2147483647", field: "counts")
            }
            let bssid = count.bssid.lowercased()
            if known.contains(bssid) { accepted.append((bssid, count.devices)) } else { unknown.append(count.bssid) }
        }
        try await maps.recordCounts(accepted, at: clock.now())
        try await loader.updateCrowd()
        return .init(accepted: accepted.count, unknown: unknown)
    }

    func occupancy() async throws -> Routing.GetOccupancy.Reply {
        let counts = try await maps.counts()
        let now = clock.now()
        var people = 0
        var areas: [Routing.AreaOccupancy] = []
        for point in try await maps.accessPoints() {
            var devices = 0
            if let count = counts[point.bssid], now.timeIntervalSince(count.reportedAt) <= crowdModel.staleAfter {
                devices = count.devices
            }
            people += devices
            let density = crowdModel.density(devices: devices, capacity: point.capacity)
            areas.append(
                .init(
                    bssid: point.bssid, name: point.name, level: point.level, devices: devices,
                    capacity: point.capacity, density: (density * 100).rounded() / 100,
                    crowdFactor: (crowdModel.factor(density: density) * 100).rounded() / 100))
        }
        return .init(peopleOnCampus: people, areas: areas)
    }

    func importMap(_ request: Routing.ImportMap.Request, by userId: String) async throws -> Routing.ImportMap.Reply {
        let data = Data(request.osm.utf8)
        let map: CampusMap
        do {
            map = try await onOwnThread { try CampusMap.load(osm: data) }
        } catch let error as MapError {
            throw ServiceError(.invalidArgument, error.description, details: ["field": "osm"])
        }
        let version = try await maps.saveImport(
            osm: request.osm, map: map, importedBy: userId, replace: true, now: clock.now())
        venueCache.forgetAll()
        try await loader.installImported(map, version: version)
        return .init(
            version: version, nodes: map.graph.nodeCount, edges: map.graph.edgeCount, venues: map.venues.count,
            accessPoints: map.accessPoints.count)
    }

    static func uuid(_ text: String) throws(ServiceError) -> UUID {
        guard let id = UUID(uuidString: text) else { throw ServiceError.invalidArgument("not a venue id", field: "id") }
        return id
    }

    static func validated(_ draft: Routing.VenueDraft) throws(ServiceError) -> Routing.VenueDraft {
        guard !draft.name.trimmingCharacters(in: .whitespaces).isEmpty, draft.name.count <= 200 else {
            throw ServiceError.invalidArgument("name must be 1-200 characters", field: "name")
        }
        guard Routing.venueKinds.contains(draft.kind) else {
            throw ServiceError.invalidArgument(
                "kind must be one of \(Routing.venueKinds.joined(separator: ", "))", field: "kind")
        }
        guard (-90...90).contains(draft.lat), (-180...180).contains(draft.lon) else {
            throw ServiceError.invalidArgument("lat/lon out of range", field: "lat")
        }
        try checkLevel(draft.level)
        var draft = draft
        (draft.lat, draft.lon) = (degrees(draft.lat), degrees(draft.lon))
        return draft
    }

    /// A coordinate to 9 decimal places (about 0.1 mm), as venues are stored and searched: the
    /// distance query squares differences in degrees, and one of 1e-300 made PostgreSQL's float
    /// arithmetic fail with an underflow (a 500) instead of giving 0 m.
    static func degrees(_ value: Double) -> Double {
        (value * 1e9).rounded() / 1e9
    }

    /// A floor number fits the stores' `int` columns (32 bits); beyond that is a 400, not a
    /// database error.
    static func checkLevel(_ level: Int?, field: String = "level") throws(ServiceError) {
        guard let level, Int32(exactly: level) == nil else { return }
        throw ServiceError.invalidArgument("\(field) is a floor number, -2147483648 to 2147483647", field: field)
    }

    static func validated(_ point: Routing.AccessPoint) throws(ServiceError) -> AccessPoint {
        let bssid = point.bssid.lowercased()
        guard bssid.wholeMatch(of: /[0-9a-f]{2}(:[0-9a-f]{2}){5}/) != nil else {
            throw ServiceError.invalidArgument("bssid must look like aa:bb:cc:dd:ee:ff", field: "bssid")
        }
        guard point.capacity > 0, Int32(exactly: point.capacity) != nil else {
            throw ServiceError.invalidArgument("capacity is 1 to 2147483647", field: "capacity")
        }
        try checkLevel(point.level)
        guard (-90...90).contains(point.lat), (-180...180).contains(point.lon) else {
            throw ServiceError.invalidArgument("lat/lon out of range", field: "lat")
        }
        return AccessPoint(
            bssid: bssid, name: point.name, latitude: point.lat, longitude: point.lon, level: point.level,
            capacity: point.capacity)
    }

    static func wire(_ point: AccessPoint) -> Routing.AccessPoint {
        Routing.AccessPoint(
            bssid: point.bssid, name: point.name, lat: point.latitude, lon: point.longitude, level: point.level,
            capacity: point.capacity)
    }
}
