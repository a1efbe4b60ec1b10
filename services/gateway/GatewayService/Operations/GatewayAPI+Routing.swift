import Contract
import Foundation
import OpenAPIRuntime
import RoutingContract
import ServiceKit

/// NavUP's documents in other formats, answered by the `routing` service: the campus map (OSM
/// XML) and timetables (iCalendar or CSV) an admin imports, and the private feed (iCalendar out).
extension GatewayAPI {
    /// Largest OSM XML an admin may import.
    static let maximumMapBytes = 64 * 1024 * 1024

    func importCampusMap(_ input: Operations.ImportCampusMap.Input) async throws -> Operations.ImportCampusMap.Output {
        guard case .xml(let body) = input.body else { throw ServiceError(.invalidArgument, "send OSM XML") }
        let scope = try self.scope
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
}

extension GatewayAPI {
    /// Largest timetable file an admin may import.
    static let maximumTimetableBytes = 8 * 1024 * 1024

    func importTimetable(_ input: Operations.ImportTimetable.Input) async throws -> Operations.ImportTimetable.Output {
        let scope = try self.scope
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
