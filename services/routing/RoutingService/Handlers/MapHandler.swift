import Contract
import Foundation
import RoutingContract
import ServiceKit
import Store

/// The campus map's admin operations: access points, and importing a new map.
public struct MapHandler: Sendable {
    let maps: MapStore
    let loader: CampusLoader
    let cache: VenueCache
    let clock: any WallClock

    public init(maps: MapStore, loader: CampusLoader, cache: VenueCache, clock: any WallClock) {
        self.maps = maps
        self.loader = loader
        self.cache = cache
        self.clock = clock
    }

    /// `list_access_points`.
    func accessPoints(_ request: Empty, _ context: OperationContext) async throws -> Routing.AccessPoints {
        Routing.AccessPoints(accessPoints: try await maps.accessPoints().map(VenueRules.wire))
    }

    /// `put_access_point` (admin): stored, then installed on this replica at once.
    func putAccessPoint(_ request: Routing.AccessPoint, _ context: OperationContext) async throws
        -> Routing.AccessPoint
    {
        _ = try context.requireRole(.admin)
        let point = try VenueRules.validated(request)
        try await maps.putAccessPoint(point, now: clock.now())
        try await loader.refresh()
        return VenueRules.wire(point)
    }

    /// `delete_access_point` (admin).
    func deleteAccessPoint(_ request: Routing.DeleteAccessPoint.Request, _ context: OperationContext) async throws
        -> Empty
    {
        _ = try context.requireRole(.admin)
        guard try await maps.deleteAccessPoint(bssid: request.bssid.lowercased()) else {
            throw ServiceError.notFound("no access point \(request.bssid)")
        }
        try await loader.refresh()
        return Empty()
    }

    /// `import_map` (admin): parsed on a thread of its own, stored, installed on this replica.
    func importMap(_ request: Routing.ImportMap.Request, _ context: OperationContext) async throws
        -> Routing.ImportMap.Reply
    {
        let actor = try context.requireRole(.admin)
        let data = Data(request.osm.utf8)
        let map: CampusMap
        do {
            map = try await onOwnThread { try CampusMap.load(osm: data) }
        } catch let error as MapError {
            throw ServiceError(.invalidArgument, error.description, details: ["field": "osm"])
        }
        let version = try await maps.saveImport(
            osm: request.osm, map: map, importedBy: actor.userId, replace: true, now: clock.now())
        cache.forgetAll()
        try await loader.installImported(map, version: version)
        return .init(
            version: version, nodes: map.graph.nodeCount, edges: map.graph.edgeCount, venues: map.venues.count,
            accessPoints: map.accessPoints.count)
    }
}
