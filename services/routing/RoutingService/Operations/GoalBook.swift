import Contract
import Foundation
import Logging
import PostgresNIO
import RoutingContract
import ServiceKit
import Store

/// Weekly goals, what users did towards them, and the vouchers completing them earns. A report
/// or visit, the vouchers it earns and their `routing.goal_completed` events commit together.
public struct GoalBook: Sendable {
    let client: PostgresClient
    let events: EventPublisher
    /// The campus's time zone: goal weeks run from Monday 00:00 to Monday 00:00 on its clocks.
    public let zone: TimeZone
    let logger: Logger

    /// A book on `client` that appends its events through `events`, with weeks in `zone`.
    public init(client: PostgresClient, events: EventPublisher, zone: TimeZone, logger: Logger) {
        self.client = client
        self.events = events
        self.zone = zone
        self.logger = logger
    }

    /// The goal week `date` falls in.
    public func week(containing date: Date) -> CampusWeek { CampusWeek(containing: date, in: zone) }

    /// Runs `body` in a transaction; an error thrown by `body` comes out as it was thrown.
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await client.transaction(logger: logger) { connection in try await body(connection) }
    }

    /// Adds steps and metres to the user's week, then issues what that completes. A report
    /// whose `reportId` was counted before adds nothing.
    public func report(
        steps: Int64, distance: Int64, reportId: UUID? = nil, user: UUID, now: Date, requestId: String?
    ) async throws -> Routing.MyWeek {
        let week = self.week(containing: now)
        let (completed, stored) = try await transaction { connection in
            if let reportId {
                let rows = try await connection.fetch(
                    """
                    INSERT INTO routing.activity_reports (user_id, report_id, received_at)
                    VALUES (\(user), \(reportId), \(now)) ON CONFLICT DO NOTHING RETURNING report_id
                    """, logger: logger)
                var isNew = false
                for try await _ in rows { isNew = true }
                guard isNew else { return ([String](), [StoredEvent]()) }
            }
            try await connection.fetch(
                """
                INSERT INTO routing.activity (user_id, week_start, steps, distance, updated_at)
                VALUES (\(user), \(week.start)::date, \(steps), \(distance), \(now))
                ON CONFLICT (user_id, week_start) DO UPDATE SET
                  steps = activity.steps + excluded.steps, distance = activity.distance + excluded.distance,
                  updated_at = excluded.updated_at
                """, logger: logger)
            return try await issueVouchers(user: user, week: week, now: now, requestId: requestId, on: connection)
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
        let (completed, stored) = try await transaction { connection in
            let rows = try await connection.fetch(
                """
                INSERT INTO routing.venue_visits (user_id, week_start, venue_id, visited_at)
                VALUES (\(user), \(week.start)::date, \(venue), \(now))
                ON CONFLICT DO NOTHING RETURNING venue_id
                """, logger: logger)
            var isNew = false
            for try await _ in rows { isNew = true }
            guard isNew else { return ([String](), [StoredEvent]()) }
            return try await issueVouchers(user: user, week: week, now: now, requestId: requestId, on: connection)
        }
        for event in stored { events.announce(event) }
        return completed
    }

    /// The user's totals for `week`: steps, metres, distinct venues, classes attended.
    func totals(user: UUID, week: CampusWeek, on connection: PostgresConnection) async throws
        -> Totals
    {
        let rows = try await connection.fetch(
            """
            SELECT coalesce((SELECT steps FROM routing.activity WHERE user_id = \(user) AND week_start = \(week.start)::date), 0),
                   coalesce((SELECT distance FROM routing.activity WHERE user_id = \(user) AND week_start = \(week.start)::date), 0),
                   (SELECT count(*) FROM routing.venue_visits WHERE user_id = \(user) AND week_start = \(week.start)::date),
                   (SELECT count(*) FROM routing.class_attendance WHERE user_id = \(user) AND week_start = \(week.start)::date)
            """, logger: logger)
        for try await (steps, distance, venues, lectures) in rows.decode((Int64, Int64, Int64, Int64).self) {
            return Totals(steps: steps, distance: distance, venues: venues, lectures: lectures)
        }
        return Totals(steps: 0, distance: 0, venues: 0, lectures: 0)
    }

    /// What a user did in a week.
    struct Totals {
        var steps: Int64
        var distance: Int64
        var venues: Int64
        var lectures: Int64
    }

    /// Records that the user attended the occurrence of `meeting` starting at `start` (once),
    /// then issues what that completes. Returns the ids of the goals completed.
    @discardableResult
    public func attend(meeting: UUID, start: Date, user: UUID, now: Date, requestId: String?) async throws -> [String] {
        let week = self.week(containing: now)
        let (completed, stored) = try await transaction { connection in
            let rows = try await connection.fetch(
                """
                INSERT INTO routing.class_attendance (user_id, meeting_id, occurrence_start, week_start, attended_at)
                VALUES (\(user), \(meeting), \(start), \(week.start)::date, \(now))
                ON CONFLICT DO NOTHING RETURNING meeting_id
                """, logger: logger)
            var isNew = false
            for try await _ in rows { isNew = true }
            guard isNew else { return ([String](), [StoredEvent]()) }
            return try await issueVouchers(user: user, week: week, now: now, requestId: requestId, on: connection)
        }
        for event in stored { events.announce(event) }
        return completed
    }

    /// Issues a voucher for every goal of `week` the user has reached and holds none for, with
    /// its event; a voucher already issued (even by a concurrent request) is never issued twice.
    func issueVouchers(
        user: UUID, week: CampusWeek, now: Date, requestId: String?, on connection: PostgresConnection
    ) async throws -> ([String], [StoredEvent]) {
        let totals = try await totals(user: user, week: week, on: connection)
        var completed: [String] = []
        var stored: [StoredEvent] = []
        for goal in try await goals(week: week, on: connection) {
            guard progress(of: goal, totals) >= goal.target, let goalId = UUID(uuidString: goal.id) else { continue }
            let code = VoucherCode.make()
            let rows = try await connection.fetch(
                """
                INSERT INTO routing.vouchers (code, goal_id, user_id, goal_title, reward, issued_at)
                VALUES (\(code), \(goalId), \(user), \(goal.title), \(goal.reward), \(now))
                ON CONFLICT (goal_id, user_id) DO NOTHING RETURNING code
                """, logger: logger)
            var issued = false
            for try await _ in rows { issued = true }
            guard issued else { continue }
            let event = Routing.GoalCompleted(
                userId: user.uuidString.lowercased(), goalId: goal.id, goal: goal.title, reward: goal.reward,
                voucherCode: code, weekStart: week.start, metric: goal.metric, target: goal.target)
            stored.append(
                try await events.append(
                    topic: Routing.GoalCompleted.topic, payload: event, requestId: requestId, on: connection,
                    logger: logger))
            completed.append(goal.id)
        }
        return (completed, stored)
    }

    func progress(of goal: Routing.Goal, _ totals: Totals) -> Int64 {
        switch goal.metric {
        case "steps": totals.steps
        case "distance": totals.distance
        case "lectures_attended": totals.lectures
        default: totals.venues
        }
    }

    /// The user's week: totals, and every goal of it with progress and voucher.
    public func myWeek(user: UUID, week: CampusWeek) async throws -> Routing.MyWeek {
        try await client.withConnection { connection in
            let totals = try await totals(user: user, week: week, on: connection)
            var vouchers: [String: Routing.Voucher] = [:]
            let rows = try await connection.fetch(
                """
                SELECT \(unescaped: Self.voucherColumns) FROM routing.vouchers
                WHERE user_id = \(user) AND goal_id IN
                  (SELECT id FROM routing.goals WHERE week_start = \(week.start)::date)
                """, logger: logger)
            for voucher in try await Self.vouchers(rows) { vouchers[voucher.goalId] = voucher }
            let goals = try await goals(week: week, on: connection).map { goal in
                let progress = progress(of: goal, totals)
                return Routing.GoalProgress(
                    goal: goal, progress: progress, completed: vouchers[goal.id] != nil || progress >= goal.target,
                    voucher: vouchers[goal.id])
            }
            return Routing.MyWeek(
                weekStart: week.start, weekStartsAt: week.startsAt, weekEndsAt: week.endsAt, steps: totals.steps,
                distance: totals.distance, venues: totals.venues, lecturesAttended: totals.lectures, goals: goals)
        }
    }
}
