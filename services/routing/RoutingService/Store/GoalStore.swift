import Contract
import Foundation
import Logging
import PostgresNIO
import RoutingContract
import Store

/// The weekly goals and what users did towards them: `routing.goals`, `routing.activity`,
/// `routing.activity_reports`, `routing.venue_visits` and `routing.class_attendance`.
public struct GoalStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    private static let goalColumns = "id, title, metric, target, week_start::text, reward"

    /// The goals of `week`, by title.
    public func goals(week: CampusWeek) async throws -> [Routing.Goal] {
        try await client.withConnection { connection in try await goals(week: week, on: connection) }
    }

    /// The goals of `week`, by title, read in `tx`.
    public func goals(week: CampusWeek, in tx: Transaction) async throws -> [Routing.Goal] {
        try await goals(week: week, on: tx.connection)
    }

    private func goals(week: CampusWeek, on connection: PostgresConnection) async throws -> [Routing.Goal] {
        let rows = try await connection.fetch(
            """
            SELECT \(unescaped: Self.goalColumns) FROM routing.goals
            WHERE week_start = \(week.start)::date ORDER BY title, id
            """, logger: logger)
        return try await Self.goals(rows)
    }

    /// Creates a goal for `week`.
    public func create(_ draft: Routing.GoalDraft, week: CampusWeek, id: UUID, now: Date) async throws -> Routing.Goal {
        try await client.fetch(
            """
            INSERT INTO routing.goals (id, title, metric, target, week_start, reward, updated_at)
            VALUES (\(id), \(draft.title), \(draft.metric), \(draft.target), \(week.start)::date, \(draft.reward), \(now))
            """, logger: logger)
        return Routing.Goal(
            id: id.uuidString.lowercased(), title: draft.title, metric: draft.metric, target: draft.target,
            weekStart: week.start, reward: draft.reward)
    }

    /// Replaces a goal; nil when there is none. Vouchers already issued stay as they are.
    public func update(id: UUID, with draft: Routing.GoalDraft, week: CampusWeek, now: Date) async throws
        -> Routing.Goal?
    {
        let rows = try await client.fetch(
            """
            UPDATE routing.goals SET title = \(draft.title), metric = \(draft.metric), target = \(draft.target),
              week_start = \(week.start)::date, reward = \(draft.reward), updated_at = \(now)
            WHERE id = \(id) RETURNING \(unescaped: Self.goalColumns)
            """, logger: logger)
        return try await Self.goals(rows).first
    }

    /// Deletes a goal; false when there was none.
    public func delete(id: UUID) async throws -> Bool {
        let rows = try await client.fetch("DELETE FROM routing.goals WHERE id = \(id) RETURNING id", logger: logger)
        for try await _ in rows { return true }
        return false
    }

    private static func goals(_ rows: FetchedRows) async throws -> [Routing.Goal] {
        var goals: [Routing.Goal] = []
        for try await (id, title, metric, target, weekStart, reward) in rows.decode(
            (UUID, String, String, Int64, String, String).self)
        {
            goals.append(
                Routing.Goal(
                    id: id.uuidString.lowercased(), title: title, metric: metric, target: target,
                    weekStart: weekStart, reward: reward))
        }
        return goals
    }

    /// Records that the activity report `reportId` of `user` was received; false when it was
    /// counted before.
    public func recordReport(_ reportId: UUID, user: UUID, now: Date, in tx: Transaction) async throws -> Bool {
        let rows = try await tx.connection.fetch(
            """
            INSERT INTO routing.activity_reports (user_id, report_id, received_at)
            VALUES (\(user), \(reportId), \(now)) ON CONFLICT DO NOTHING RETURNING report_id
            """, logger: tx.logger)
        var isNew = false
        for try await _ in rows { isNew = true }
        return isNew
    }

    /// Adds steps and metres to the user's `week`.
    public func addActivity(
        steps: Int64, distance: Int64, user: UUID, week: CampusWeek, now: Date, in tx: Transaction
    ) async throws {
        try await tx.connection.fetch(
            """
            INSERT INTO routing.activity (user_id, week_start, steps, distance, updated_at)
            VALUES (\(user), \(week.start)::date, \(steps), \(distance), \(now))
            ON CONFLICT (user_id, week_start) DO UPDATE SET
              steps = activity.steps + excluded.steps, distance = activity.distance + excluded.distance,
              updated_at = excluded.updated_at
            """, logger: tx.logger)
    }

    /// Records that the user was at `venue` in `week`; false when that was recorded before.
    public func recordVisit(venue: UUID, user: UUID, week: CampusWeek, now: Date, in tx: Transaction) async throws
        -> Bool
    {
        let rows = try await tx.connection.fetch(
            """
            INSERT INTO routing.venue_visits (user_id, week_start, venue_id, visited_at)
            VALUES (\(user), \(week.start)::date, \(venue), \(now))
            ON CONFLICT DO NOTHING RETURNING venue_id
            """, logger: tx.logger)
        var isNew = false
        for try await _ in rows { isNew = true }
        return isNew
    }

    /// Records that the user attended the occurrence of `meeting` starting at `start`; false when
    /// that was recorded before.
    public func recordAttendance(
        meeting: UUID, start: Date, user: UUID, week: CampusWeek, now: Date, in tx: Transaction
    ) async throws -> Bool {
        let rows = try await tx.connection.fetch(
            """
            INSERT INTO routing.class_attendance (user_id, meeting_id, occurrence_start, week_start, attended_at)
            VALUES (\(user), \(meeting), \(start), \(week.start)::date, \(now))
            ON CONFLICT DO NOTHING RETURNING meeting_id
            """, logger: tx.logger)
        var isNew = false
        for try await _ in rows { isNew = true }
        return isNew
    }

    /// The user's totals for `week`: steps, metres, distinct venues, classes attended.
    public func totals(user: UUID, week: CampusWeek) async throws -> WeekTotals {
        try await client.withConnection { connection in try await totals(user: user, week: week, on: connection) }
    }

    /// The user's totals for `week`, read in `tx`.
    public func totals(user: UUID, week: CampusWeek, in tx: Transaction) async throws -> WeekTotals {
        try await totals(user: user, week: week, on: tx.connection)
    }

    private func totals(user: UUID, week: CampusWeek, on connection: PostgresConnection) async throws -> WeekTotals {
        let rows = try await connection.fetch(
            """
            SELECT coalesce((SELECT steps FROM routing.activity WHERE user_id = \(user) AND week_start = \(week.start)::date), 0),
                   coalesce((SELECT distance FROM routing.activity WHERE user_id = \(user) AND week_start = \(week.start)::date), 0),
                   (SELECT count(*) FROM routing.venue_visits WHERE user_id = \(user) AND week_start = \(week.start)::date),
                   (SELECT count(*) FROM routing.class_attendance WHERE user_id = \(user) AND week_start = \(week.start)::date)
            """, logger: logger)
        for try await (steps, distance, venues, lectures) in rows.decode((Int64, Int64, Int64, Int64).self) {
            return WeekTotals(steps: steps, distance: distance, venues: venues, lectures: lectures)
        }
        return .zero
    }
}
