import Contract
import Foundation
import RoutingContract
import ServiceKit
import Store

/// `locate`: a position from a Wi-Fi scan (or the phone's GPS outside campus Wi-Fi); a signed-in
/// student's Wi-Fi fix also counts as a venue visit and as attending the class held there.
public struct PositionHandler: Sendable {
    let state: CampusState
    let cache: VenueCache
    let goals: GoalHandler
    let timetable: TimetableHandler
    let clock: any WallClock
    let locator = WifiLocator()
    /// Visits already stored by this replica (see ``VisitMemo``).
    let visits = VisitMemo()

    public init(
        state: CampusState, cache: VenueCache, goals: GoalHandler, timetable: TimetableHandler, clock: any WallClock
    ) {
        self.state = state
        self.cache = cache
        self.goals = goals
        self.timetable = timetable
        self.clock = clock
    }

    /// `locate`.
    func locate(_ request: Routing.Locate.Request, _ context: OperationContext) async throws -> Routing.Locate.Reply {
        let estimate = try locate(request)
        await recordVisit(estimate, context: context)
        return estimate
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

    /// Counts a Wi-Fi fix of a signed-in user as a visit to the venue there (nearest on the
    /// floor within ``GoalRules/visitRadius``); only the venue and the week are kept, never the position.
    func recordVisit(_ estimate: Routing.Locate.Reply, context: OperationContext) async {
        guard estimate.source == "wifi", let actor = context.metadata.actor, let user = UUID(uuidString: actor.userId)
        else { return }
        do {
            let nearby = try await cache.near((estimate.lat, estimate.lon), radius: GoalRules.visitRadius, limit: 10)
            guard let venue = nearby.first(where: { $0.level == estimate.level }), let id = UUID(uuidString: venue.id)
            else { return }
            let now = clock.now()
            await recordAttendance(user: user, venue: id, now: now, context: context)
            let visit = VisitMemo.Visit(user: user, week: goals.week(containing: now).start, venue: id)
            // A phone reports every few seconds from the same hall: the visit is stored once.
            guard !visits.contains(visit) else { return }
            try await goals.visit(venue: id, user: user, now: now, requestId: context.metadata.requestId)
            visits.insert(visit)
        } catch {
            context.logger.warning(
                "could not record a venue visit", metadata: ["error": "\(SafeErrorDescription.of(error))"])
        }
    }

    /// Counts the fix as attending each of the user's classes at `venue` whose attendance window
    /// (``AttendanceWindow``) holds `now`; only the meeting and the occurrence's start are kept.
    func recordAttendance(user: UUID, venue: UUID, now: Date, context: OperationContext) async {
        do {
            for occurrence in try await timetable.attendable(user: user, venue: venue, now: now) {
                guard let meeting = UUID(uuidString: occurrence.meetingId) else { continue }
                let attendance = VisitMemo.Attendance(user: user, meeting: meeting, start: occurrence.start)
                // A phone in a lecture reports every few seconds: stored once.
                guard !visits.contains(attendance) else { continue }
                try await goals.attend(
                    meeting: meeting, start: occurrence.start, user: user, now: now,
                    requestId: context.metadata.requestId)
                visits.insert(attendance)
            }
        } catch {
            context.logger.warning(
                "could not record a class attendance", metadata: ["error": "\(SafeErrorDescription.of(error))"])
        }
    }
}
