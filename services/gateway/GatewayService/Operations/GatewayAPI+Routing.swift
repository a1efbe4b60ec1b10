import Contract
import Foundation
import OpenAPIRuntime
import RoutingContract
import ServiceKit

/// `/v1/campus/...` and `/v1/admin/campus/...`: NavUP, answered by the `routing` service.
extension GatewayAPI {
    /// Largest OSM XML an admin may import.
    static let maximumMapBytes = 64 * 1024 * 1024

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

/// Timetables: the admin import (iCalendar or CSV text) and the private feed (iCalendar out).
extension GatewayAPI {
    /// Largest timetable file an admin may import.
    static let maximumTimetableBytes = 8 * 1024 * 1024

    func importTimetable(_ input: Operations.ImportTimetable.Input) async throws -> Operations.ImportTimetable.Output {
        let scope = try self.scope
        _ = try scope.requireActor()
        let (format, body): (String, HTTPBody) =
            switch input.body {
            case .textCalendar(let body): ("ical", body)
            case .csv(let body): ("csv", body)
            }
        let text = try await String(collecting: body, upTo: Self.maximumTimetableBytes)
        let reply = try await bus.call(
            Routing.ImportTimetable.self, .init(format: format, text: text),
            metadata: scope.metadata(deadline: .seconds(120)))
        return .ok(
            .init(
                body: .json(
                    .init(
                        modulesCreated: reply.modulesCreated, modulesUpdated: reply.modulesUpdated,
                        meetingsCreated: reply.meetingsCreated, meetingsUpdated: reply.meetingsUpdated,
                        meetingsUnchanged: reply.meetingsUnchanged, meetingsCancelled: reply.meetingsCancelled,
                        unmatchedLocations: reply.unmatchedLocations))))
    }

    /// No bearer token: the secret in the path is the capability (and is logged as `{}`).
    func getTimetableFeed(_ input: Operations.GetTimetableFeed.Input) async throws
        -> Operations.GetTimetableFeed.Output
    {
        let reply = try await callOpenly(Routing.TimetableFeed.self, .init(secret: input.path.feed))
        return .ok(.init(body: .textCalendar(HTTPBody(reply.calendar))))
    }
}
