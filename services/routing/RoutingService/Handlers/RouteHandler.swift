import Contract
import Foundation
import RoutingContract
import ServiceKit
import Store

/// Routes on the installed campus: between two places, and to the caller's next class.
public struct RouteHandler: Sendable {
    let venues: VenueHandler
    let navigator: Navigator
    let timetable: TimetableHandler
    let clock: any WallClock

    public init(venues: VenueHandler, navigator: Navigator, timetable: TimetableHandler, clock: any WallClock) {
        self.venues = venues
        self.navigator = navigator
        self.timetable = timetable
        self.clock = clock
    }

    /// `plan_route`.
    func plan(_ request: Routing.PlanRoute.Request, _ context: OperationContext) async throws -> Routing.Route {
        let profile = try Self.profile(request.profile)
        let from = try await venues.point(request.from, field: "from")
        let to = try await venues.point(request.to, field: "to")
        return try navigator.route(from: from, to: to, profile: profile)
    }

    /// `next_class`: the caller's next class, the route there and when to leave.
    func nextClass(_ request: Routing.NextClass.Request, _ context: OperationContext) async throws
        -> Routing.NextClass.Reply
    {
        let user = try context.userId()
        let profile = try Self.profile(request.profile)
        let from = try await venues.point(request.from, field: "from")
        return try await timetable.nextClass(
            user: user, from: from, profile: profile, navigator: navigator, now: clock.now())
    }

    /// A route profile by name (`fastest` when none is named).
    static func profile(_ name: String?) throws(ServiceError) -> RouteProfile {
        guard let profile = name.map(RouteProfile.init(rawValue:)) ?? .fastest else {
            throw ServiceError(
                .invalidArgument, "profile must be fastest, accessible or shortest", details: ["field": "profile"])
        }
        return profile
    }
}
