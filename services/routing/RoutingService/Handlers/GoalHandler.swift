import Contract
import Foundation
import RoutingContract
import ServiceKit
import Store

/// Weekly goals (admin-set), what users did towards them (activity reports, venue visits, classes
/// attended) and the vouchers completing them earns. A report or visit, the vouchers it earns and
/// their `routing.goal_completed` events commit together.
public struct GoalHandler: Sendable {
    let goals: GoalStore
    let vouchers: VoucherStore
    let transactions: Transactions
    let events: EventPublisher
    /// The campus's time zone: goal weeks run from Monday 00:00 to Monday 00:00 on its clocks.
    public let zone: TimeZone
    let clock: any WallClock

    public init(
        goals: GoalStore, vouchers: VoucherStore, transactions: Transactions, events: EventPublisher, zone: TimeZone,
        clock: any WallClock
    ) {
        self.goals = goals
        self.vouchers = vouchers
        self.transactions = transactions
        self.events = events
        self.zone = zone
        self.clock = clock
    }

    /// `create_goal` (admin).
    func create(_ request: Routing.GoalDraft, _ context: OperationContext) async throws -> Routing.Goal {
        _ = try context.requireRole(.admin)
        let week = try GoalRules.validated(request, now: clock.now(), zone: zone)
        return try await goals.create(request, week: week, id: UUID(), now: clock.now())
    }

    /// `update_goal` (admin).
    func update(_ request: Routing.GoalUpdate, _ context: OperationContext) async throws -> Routing.Goal {
        _ = try context.requireRole(.admin)
        let id = try VenueRules.uuid(request.id, field: "id", what: "goal")
        let week = try GoalRules.validated(request.body, now: clock.now(), zone: zone)
        guard let goal = try await goals.update(id: id, with: request.body, week: week, now: clock.now()) else {
            throw ServiceError.notFound("no goal \(request.id)")
        }
        return goal
    }

    /// `delete_goal` (admin).
    func delete(_ request: Routing.DeleteGoal.Request, _ context: OperationContext) async throws -> Empty {
        _ = try context.requireRole(.admin)
        guard try await goals.delete(id: try VenueRules.uuid(request.id, field: "id", what: "goal")) else {
            throw ServiceError.notFound("no goal \(request.id)")
        }
        return Empty()
    }

    /// `my_goals`: the caller's week (this one, or the one holding `week`).
    func myGoals(_ request: Routing.MyGoals.Request, _ context: OperationContext) async throws -> Routing.MyWeek {
        let user = try context.userId()
        var week = self.week(containing: clock.now())
        if let text = request.week {
            guard let named = CampusWeek(day: text, in: zone) else {
                throw ServiceError.invalidArgument("week must be a date, YYYY-MM-DD", field: "week")
            }
            week = named
        }
        return try await myWeek(user: user, week: week)
    }

    /// `report_activity`: steps and metres added to the caller's week.
    func reportActivity(_ request: Routing.ReportActivity.Request, _ context: OperationContext) async throws
        -> Routing.MyWeek
    {
        let user = try context.userId()
        try GoalRules.checkReport(steps: request.steps, distance: request.distance)
        let reportId = try request.reportId.map { try VenueRules.uuid($0, field: "reportId", what: "report") }
        return try await report(
            steps: request.steps, distance: request.distance, reportId: reportId, user: user, now: clock.now(),
            requestId: context.metadata.requestId)
    }

    /// The goal week `date` falls in.
    public func week(containing date: Date) -> CampusWeek { CampusWeek(containing: date, in: zone) }

    /// Adds steps and metres to the user's week, then issues what that completes. A report
    /// whose `reportId` was counted before adds nothing.
    public func report(
        steps: Int64, distance: Int64, reportId: UUID? = nil, user: UUID, now: Date, requestId: String?
    ) async throws -> Routing.MyWeek {
        let week = self.week(containing: now)
        let (completed, stored) = try await transactions.run { tx in
            if let reportId {
                guard try await goals.recordReport(reportId, user: user, now: now, in: tx) else {
                    return ([String](), [StoredEvent]())
                }
            }
            try await goals.addActivity(steps: steps, distance: distance, user: user, week: week, now: now, in: tx)
            return try await issueVouchers(user: user, week: week, now: now, requestId: requestId, in: tx)
        }
        for event in stored { events.announce(event) }
        var reply = try await myWeek(user: user, week: week)
        reply.justCompleted = completed
        return reply
    }

    /// Records that the user was at `venue` this week (once per venue and week), then issues what
    /// that completes. Returns the ids of the goals completed.
    @discardableResult
    public func visit(venue: UUID, user: UUID, now: Date, requestId: String?) async throws -> [String] {
        let week = self.week(containing: now)
        let (completed, stored) = try await transactions.run { tx in
            guard try await goals.recordVisit(venue: venue, user: user, week: week, now: now, in: tx) else {
                return ([String](), [StoredEvent]())
            }
            return try await issueVouchers(user: user, week: week, now: now, requestId: requestId, in: tx)
        }
        for event in stored { events.announce(event) }
        return completed
    }

    /// Records that the user attended the occurrence of `meeting` starting at `start` (once),
    /// then issues what that completes. Returns the ids of the goals completed.
    @discardableResult
    public func attend(meeting: UUID, start: Date, user: UUID, now: Date, requestId: String?) async throws -> [String] {
        let week = self.week(containing: now)
        let (completed, stored) = try await transactions.run { tx in
            guard
                try await goals.recordAttendance(
                    meeting: meeting, start: start, user: user, week: week, now: now, in: tx)
            else { return ([String](), [StoredEvent]()) }
            return try await issueVouchers(user: user, week: week, now: now, requestId: requestId, in: tx)
        }
        for event in stored { events.announce(event) }
        return completed
    }

    /// Issues a voucher for every goal of `week` the user has reached and holds none for, with
    /// its event; a voucher already issued (even by a concurrent request) is never issued twice.
    func issueVouchers(
        user: UUID, week: CampusWeek, now: Date, requestId: String?, in tx: Transaction
    ) async throws -> ([String], [StoredEvent]) {
        let totals = try await goals.totals(user: user, week: week, in: tx)
        var completed: [String] = []
        var stored: [StoredEvent] = []
        for goal in try await goals.goals(week: week, in: tx) {
            guard totals.progress(of: goal) >= goal.target, let goalId = UUID(uuidString: goal.id) else { continue }
            let code = VoucherCode.make()
            guard try await vouchers.issue(code: code, goal: goal, goalId: goalId, user: user, now: now, in: tx)
            else { continue }
            let event = Routing.GoalCompleted(
                userId: user.uuidString.lowercased(), goalId: goal.id, goal: goal.title, reward: goal.reward,
                voucherCode: code, weekStart: week.start, metric: goal.metric, target: goal.target)
            stored.append(
                try await events.append(
                    topic: Routing.GoalCompleted.topic, payload: event, requestId: requestId, in: tx))
            completed.append(goal.id)
        }
        return (completed, stored)
    }

    /// The user's week: totals, and every goal of it with progress and voucher.
    public func myWeek(user: UUID, week: CampusWeek) async throws -> Routing.MyWeek {
        let totals = try await goals.totals(user: user, week: week)
        var held: [String: Routing.Voucher] = [:]
        for voucher in try await vouchers.vouchers(of: user, week: week) { held[voucher.goalId] = voucher }
        let progress = try await goals.goals(week: week).map { goal in
            let progress = totals.progress(of: goal)
            return Routing.GoalProgress(
                goal: goal, progress: progress, completed: held[goal.id] != nil || progress >= goal.target,
                voucher: held[goal.id])
        }
        return Routing.MyWeek(
            weekStart: week.start, weekStartsAt: week.startsAt, weekEndsAt: week.endsAt, steps: totals.steps,
            distance: totals.distance, venues: totals.venues, lecturesAttended: totals.lectures, goals: progress)
    }
}
