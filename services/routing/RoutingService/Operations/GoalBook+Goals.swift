import Contract
import Foundation
import PostgresNIO
import RoutingContract
import Store

extension GoalBook {
    private static let goalColumns = "id, title, metric, target, week_start::text, reward"

    /// The goals of `week`, by title.
    func goals(week: CampusWeek, on connection: PostgresConnection) async throws -> [Routing.Goal] {
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
}
