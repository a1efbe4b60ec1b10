import Contract
import Foundation
import RoutingContract
import ServiceKit

/// Weekly goals (admin-set), activity reports, venue visits and reward vouchers.
extension RoutingAPI {
    /// Most steps, and metres, one activity report may add.
    static let maximumStepsPerReport: Int64 = 200_000
    static let maximumMetresPerReport: Int64 = 200_000
    /// How close (m, same floor) a located user must be to a venue for it to count as visited.
    static let visitRadius = 25.0

    func registerGoals(on router: inout OperationRouter) {
        router.register(Routing.CreateGoal.self) { request, context in
            _ = try context.requireRole(.admin)
            let week = try Self.validated(request, now: clock.now(), zone: goals.zone)
            return try await goals.create(request, week: week, id: UUID(), now: clock.now())
        }
        router.register(Routing.UpdateGoal.self) { request, context in
            _ = try context.requireRole(.admin)
            let id = try Self.uuid(request.id, field: "id", what: "goal")
            let week = try Self.validated(request.goal, now: clock.now(), zone: goals.zone)
            guard let goal = try await goals.update(id: id, with: request.goal, week: week, now: clock.now()) else {
                throw ServiceError.notFound("no goal \(request.id)")
            }
            return goal
        }
        router.register(Routing.DeleteGoal.self) { request, context in
            _ = try context.requireRole(.admin)
            guard try await goals.delete(id: try Self.uuid(request.id, field: "id", what: "goal")) else {
                throw ServiceError.notFound("no goal \(request.id)")
            }
            return Empty()
        }
        router.register(Routing.MyGoals.self) { request, context in
            let user = try context.userId()
            var week = goals.week(containing: clock.now())
            if let text = request.week {
                guard let named = CampusWeek(day: text, in: goals.zone) else {
                    throw ServiceError.invalidArgument("week must be a date, YYYY-MM-DD", field: "week")
                }
                week = named
            }
            return try await goals.myWeek(user: user, week: week)
        }
        router.register(Routing.ReportActivity.self) { request, context in
            let user = try context.userId()
            guard (0...Self.maximumStepsPerReport).contains(request.steps) else {
                throw ServiceError.invalidArgument(
                    "steps must be 0...\(Self.maximumStepsPerReport) per report", field: "steps")
            }
            guard (0...Self.maximumMetresPerReport).contains(request.distance) else {
                throw ServiceError.invalidArgument(
                    "distance must be 0...\(Self.maximumMetresPerReport) m per report", field: "distance")
            }
            let reportId = try request.reportId.map { try Self.uuid($0, field: "reportId", what: "report") }
            return try await goals.report(
                steps: request.steps, distance: request.distance, reportId: reportId, user: user, now: clock.now(),
                requestId: context.metadata.requestId)
        }
        router.register(Routing.VerifyVoucher.self) { request, context in
            _ = try context.requireRole(.rewardsManager)
            guard let voucher = try await goals.voucher(code: try Self.voucherCode(request.code)) else {
                throw ServiceError.notFound("no such voucher")
            }
            return voucher
        }
        router.register(Routing.RedeemVoucher.self) { request, context in
            let manager = try context.requireRole(.rewardsManager)
            switch try await goals.redeem(
                code: try Self.voucherCode(request.code), by: manager.userId, now: clock.now())
            {
            case .redeemed(let voucher):
                return voucher
            case .alreadyRedeemed(let voucher):
                throw ServiceError(
                    .conflict, "this voucher was already redeemed",
                    details: [
                        "reason": "already_redeemed",
                        "redeemedAt": .string(voucher.redeemedAt?.formatted(.iso8601) ?? ""),
                    ])
            case .unknown:
                throw ServiceError.notFound("no such voucher")
            }
        }
    }

    /// Counts a Wi-Fi fix of a signed-in user as a visit to the venue there (nearest on the
    /// floor within ``visitRadius``); only the venue and the week are kept, never the position.
    func recordVisit(_ estimate: Routing.Locate.Reply, context: OperationContext) async {
        guard estimate.source == "wifi", let actor = context.metadata.actor, let user = UUID(uuidString: actor.userId)
        else { return }
        do {
            let nearby = try await venueCache.near((estimate.lat, estimate.lon), radius: Self.visitRadius, limit: 10)
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

    static func validated(_ draft: Routing.GoalDraft, now: Date, zone: TimeZone) throws(ServiceError) -> CampusWeek {
        guard !draft.title.trimmingCharacters(in: .whitespaces).isEmpty, draft.title.count <= 200 else {
            throw ServiceError.invalidArgument("title must be 1-200 characters", field: "title")
        }
        guard Routing.goalMetrics.contains(draft.metric) else {
            throw ServiceError.invalidArgument(
                "metric must be steps, distance, venues or lectures_attended", field: "metric")
        }
        guard draft.target > 0, draft.target <= 100_000_000 else {
            throw ServiceError.invalidArgument("target must be 1...100,000,000", field: "target")
        }
        guard !draft.reward.trimmingCharacters(in: .whitespaces).isEmpty, draft.reward.count <= 500 else {
            throw ServiceError.invalidArgument("reward must be 1-500 characters", field: "reward")
        }
        guard let text = draft.weekStart else { return CampusWeek(containing: now, in: zone) }
        guard let week = CampusWeek(day: text, in: zone) else {
            throw ServiceError.invalidArgument("weekStart must be a date, YYYY-MM-DD", field: "weekStart")
        }
        return week
    }

    static func voucherCode(_ typed: String) throws(ServiceError) -> String {
        guard let code = VoucherCode.canonical(typed) else { throw ServiceError.notFound("no such voucher") }
        return code
    }
}
