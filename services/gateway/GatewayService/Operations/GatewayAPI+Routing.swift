import Contract
import Foundation
import OpenAPIRuntime
import RoutingContract
import ServiceKit

/// `/v1/campus/...` and `/v1/admin/campus/...`: NavUP, answered by the `routing` service.
extension GatewayAPI {
    /// Largest OSM XML an admin may import.
    static let maximumMapBytes = 64 * 1024 * 1024

    func searchVenues(_ input: Operations.SearchVenues.Input) async throws -> Operations.SearchVenues.Output {
        var nearLat: Double?
        var nearLon: Double?
        if let near = input.query.near {
            let parts = near.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, let lat = parts[0], let lon = parts[1] else {
                throw ServiceError.invalidArgument("near must be lat,lon, e.g. -25.7545,28.2314", field: "near")
            }
            (nearLat, nearLon) = (lat, lon)
        }
        let reply = try await callOpenly(
            Routing.SearchVenues.self,
            .init(
                q: input.query.q, kind: input.query.kind?.rawValue, nearLat: nearLat, nearLon: nearLon,
                limit: input.query.limit, radius: input.query.radius, cursor: input.query.cursor))
        return .ok(
            .init(
                body: .json(.init(items: reply.items.map(Components.Schemas.Venue.init), nextCursor: reply.nextCursor)))
        )
    }

    func getVenue(_ input: Operations.GetVenue.Input) async throws -> Operations.GetVenue.Output {
        let venue = try await callOpenly(
            Routing.GetVenue.self, .init(id: input.path.id))
        return .ok(.init(body: .json(.init(venue))))
    }

    func planRoute(_ input: Operations.PlanRoute.Input) async throws -> Operations.PlanRoute.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        func place(_ place: Components.Schemas.CampusPlace) -> Routing.Place {
            Routing.Place(venueId: place.venueId, lat: place.lat, lon: place.lon, level: place.level)
        }
        let route = try await callOpenly(
            Routing.PlanRoute.self,
            .init(from: place(body.from), to: place(body.to), profile: body.profile))
        return .ok(
            .init(
                body: .json(
                    .init(
                        profile: .init(rawValue: route.profile) ?? .fastest, distance: route.distance, eta: route.eta,
                        path: route.path.map { .init(lat: $0.lat, lon: $0.lon, level: $0.level) },
                        steps: route.steps.map {
                            .init(
                                instruction: $0.instruction, kind: .init(rawValue: $0.kind) ?? .footway,
                                level: $0.level, distance: $0.distance)
                        }))))
    }

    func locate(_ input: Operations.Locate.Input) async throws -> Operations.Locate.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let location = try await callOpenly(
            Routing.Locate.self,
            .init(
                scan: body.scan.map { .init(bssid: $0.bssid, rssi: $0.rssi) },
                gps: body.gps.map { .init(lat: $0.lat, lon: $0.lon, accuracy: $0.accuracy) }))
        return .ok(
            .init(
                body: .json(
                    .init(
                        lat: location.lat, lon: location.lon, level: location.level, accuracy: location.accuracy,
                        source: .init(rawValue: location.source) ?? .wifi,
                        accessPointsUsed: location.accessPointsUsed))))
    }

    func listAccessPoints(_ input: Operations.ListAccessPoints.Input) async throws
        -> Operations.ListAccessPoints.Output
    {
        let reply = try await callOpenly(
            Routing.ListAccessPoints.self, Empty())
        return .ok(.init(body: .json(.init(accessPoints: reply.accessPoints.map(Components.Schemas.AccessPoint.init)))))
    }

    func getOccupancy(_ input: Operations.GetOccupancy.Input) async throws -> Operations.GetOccupancy.Output {
        let reply = try await callOpenly(
            Routing.GetOccupancy.self, Empty())
        return .ok(
            .init(
                body: .json(
                    .init(
                        peopleOnCampus: reply.peopleOnCampus,
                        areas: reply.areas.map {
                            .init(
                                bssid: $0.bssid, name: $0.name, level: $0.level, devices: $0.devices,
                                capacity: $0.capacity, density: $0.density, crowdFactor: $0.crowdFactor)
                        }))))
    }

    func reportOccupancy(_ input: Operations.ReportOccupancy.Input) async throws -> Operations.ReportOccupancy.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let reply = try await callAsCaller(
            Routing.ReportOccupancy.self,
            .init(counts: body.counts.map { .init(bssid: $0.bssid, devices: $0.devices) }))
        return .ok(.init(body: .json(.init(accepted: reply.accepted, unknown: reply.unknown))))
    }
}

extension GatewayAPI {
    func importCampusMap(_ input: Operations.ImportCampusMap.Input) async throws -> Operations.ImportCampusMap.Output {
        guard case .xml(let body) = input.body else { throw ServiceError(.invalidArgument, "send OSM XML") }
        let scope = try self.scope
        _ = try scope.requireActor()
        let osm = try await String(collecting: body, upTo: Self.maximumMapBytes)
        let reply = try await bus.call(
            Routing.ImportMap.self, .init(osm: osm), metadata: scope.metadata(deadline: .seconds(120)))
        return .ok(
            .init(
                body: .json(
                    .init(
                        version: reply.version, nodes: reply.nodes, edges: reply.edges, venues: reply.venues,
                        accessPoints: reply.accessPoints))))
    }

    func createVenue(_ input: Operations.CreateVenue.Input) async throws -> Operations.CreateVenue.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let venue = try await callAsCaller(
            Routing.CreateVenue.self, Self.draft(body))
        return .created(.init(body: .json(.init(venue))))
    }

    func updateVenue(_ input: Operations.UpdateVenue.Input) async throws -> Operations.UpdateVenue.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let venue = try await callAsCaller(
            Routing.UpdateVenue.self, .init(id: input.path.id, venue: Self.draft(body)))
        return .ok(.init(body: .json(.init(venue))))
    }

    func deleteVenue(_ input: Operations.DeleteVenue.Input) async throws -> Operations.DeleteVenue.Output {
        _ = try await callAsCaller(
            Routing.DeleteVenue.self, .init(id: input.path.id))
        return .noContent(.init())
    }

    func putAccessPoint(_ input: Operations.PutAccessPoint.Input) async throws -> Operations.PutAccessPoint.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let point = try await callAsCaller(
            Routing.PutAccessPoint.self,
            .init(
                bssid: input.path.bssid, name: body.name, lat: body.lat, lon: body.lon, level: body.level,
                capacity: body.capacity))
        return .ok(.init(body: .json(.init(point))))
    }

    func deleteAccessPoint(_ input: Operations.DeleteAccessPoint.Input) async throws
        -> Operations.DeleteAccessPoint.Output
    {
        _ = try await callAsCaller(
            Routing.DeleteAccessPoint.self, .init(bssid: input.path.bssid))
        return .noContent(.init())
    }

    static func draft(_ body: Components.Schemas.VenueDraft) -> Routing.VenueDraft {
        Routing.VenueDraft(
            name: body.name, kind: body.kind.rawValue, building: body.building, level: body.level, lat: body.lat,
            lon: body.lon, description: body.description, history: body.history)
    }
}

extension Components.Schemas.Venue {
    init(_ venue: Routing.Venue) {
        self.init(
            id: venue.id, name: venue.name, kind: .init(rawValue: venue.kind) ?? .landmark, building: venue.building,
            level: venue.level, lat: venue.lat, lon: venue.lon, description: venue.description,
            history: venue.history, distance: venue.distance)
    }
}

extension Components.Schemas.AccessPoint {
    init(_ point: Routing.AccessPoint) {
        self.init(
            bssid: point.bssid, name: point.name, lat: point.lat, lon: point.lon, level: point.level,
            capacity: point.capacity)
    }
}
