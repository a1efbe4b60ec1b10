import Contract
import RoutingContract

/// Routes between positions on the installed campus: snaps both ends to the graph, runs A*,
/// describes the result. CPU only (well under a millisecond on the sample campus).
public struct Navigator: Sendable {
    /// Where the campus comes from.
    public let state: CampusState
    /// Farthest a position may be from a walkway on its floor, metres.
    public let snapDistance: Double
    let planner = RoutePlanner()

    public init(state: CampusState, snapDistance: Double = 75) {
        self.state = state
        self.snapDistance = snapDistance
    }

    /// The route from `from` to `to` under `profile`.
    public func route(from: Routing.Point, to: Routing.Point, profile: RouteProfile) throws(ServiceError)
        -> Routing.Route
    {
        guard let snapshot = state.snapshot else {
            throw ServiceError(.unavailable, "no campus map is loaded yet")
        }
        let campus = snapshot.campus
        let start = try snap(from, field: "from", on: campus)
        let end = try snap(to, field: "to", on: campus)
        guard
            let path = planner.route(
                on: campus, crowd: snapshot.crowd, from: start.node, to: end.node, profile: profile)
        else {
            let message =
                profile == .accessible
                ? "there is no accessible route (without stairs, steep ramps or narrow doors) between these places"
                : "there is no walkable route between these places"
            throw ServiceError(
                .failedPrecondition, message, details: ["reason": "no_route", "profile": .string(profile.rawValue)])
        }
        return RouteDescription(campus: campus).describe(
            path, profile: profile, crowd: snapshot.crowd, approach: start.distance + end.distance)
    }

    func snap(_ point: Routing.Point, field: String, on campus: Campus) throws(ServiceError) -> (
        node: Int, distance: Double
    ) {
        guard (-90...90).contains(point.lat), (-180...180).contains(point.lon) else {
            throw ServiceError.invalidArgument("lat must be in -90...90 and lon in -180...180", field: field)
        }
        let graph = campus.graph
        let (x, y) = graph.projection.project(latitude: point.lat, longitude: point.lon)
        guard
            let found = graph.spatial.nearest(x: x, y: y, level: Int32(point.level), maxDistance: snapDistance)
        else {
            throw ServiceError(
                .invalidArgument,
                "the \(field == "from" ? "start" : "destination") is off the campus map: no walkway within "
                    + "\(Int(snapDistance)) m on level \(point.level)",
                details: ["field": .string(field), "reason": "off_map"])
        }
        return found
    }
}
