import Contract
import Foundation
import Logging
import NotifyContract
import PostgresNIO
import ServiceKit
import Store

/// Users' schedules in `\(unescaped: schema).schedules`.
public struct ScheduleStore: Sendable {
    /// Where occurrences become notifications.
    public let notifications: NotificationStore
    var client: PostgresClient { notifications.client }
    var clock: any WallClock { notifications.clock }
    var schema: String { notifications.schema }
    let logger: Logger

    /// Schedules a user may have at most.
    public static let maxPerUser = 100

    /// Creates the store.
    public init(notifications: NotificationStore, logger: Logger) {
        self.notifications = notifications
        self.logger = logger
    }

    /// Stores a new schedule of `userId` whose first occurrence is `next`; `failed_precondition`
    /// when the user has ``maxPerUser`` already.
    public func insert(
        id: UUID, userId: UUID, kind: Notify.Kind, variables: [String: String], once: Date?, recurrence: Recurrence,
        timeZone: String, next: Date?, now: Date
    ) async throws {
        let variables = String(decoding: try JSONEncoder().encode(variables), as: UTF8.self)
        try await client.transaction(logger: logger) { connection in
            var count = 0
            let rows = try await connection.fetch(
                "SELECT count(*)::int8 FROM \(unescaped: schema).schedules WHERE user_id = \(userId)", logger: logger)
            for try await value in rows.decode(Int.self) { count = value }
            guard count < Self.maxPerUser else {
                throw ServiceError(.failedPrecondition, "at most \(Self.maxPerUser) schedules per user")
            }
            try await connection.fetch(
                """
                INSERT INTO \(unescaped: schema).schedules (id, user_id, kind, variables, once_at, times_of_day, days_of_week,
                    time_zone, next_at, created_at)
                VALUES (\(id), \(userId), \(kind.rawValue), \(variables)::text::jsonb, \(once),
                    \(recurrence.times.map(\.minutes)), \(recurrence.days.sorted()), \(timeZone), \(next), \(now))
                """, logger: logger)
        }
    }

    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// The user's schedules, oldest first (all of them unless `limit` says otherwise).
    public func list(of userId: UUID) async throws -> [Notify.Schedule] {
        try await list(of: userId, after: nil, limit: Int(Int32.max)).map(\.schedule)
    }

    /// The user's schedules after the one created at `after` (its creation in microseconds and
    /// its id), oldest first, with the creation of each in microseconds (a page's cursor).
    func list(of userId: UUID, after: (micros: Int64, id: UUID)?, limit: Int) async throws
        -> [(schedule: Notify.Schedule, createdMicros: Int64)]
    {
        let rows = try await client.fetch(
            """
            SELECT id, kind, variables::text, once_at, times_of_day, days_of_week, time_zone, next_at,
                (extract(epoch FROM created_at) * 1000000)::bigint
            FROM \(unescaped: schema).schedules WHERE user_id = \(userId)
              AND (\(after?.micros)::bigint IS NULL
                   OR (created_at, id) > ('epoch'::timestamptz + \(after?.micros)::bigint * interval '1 microsecond',
                                         \(after?.id)::uuid))
            ORDER BY created_at, id LIMIT \(limit)
            """, logger: logger)
        var schedules: [(schedule: Notify.Schedule, createdMicros: Int64)] = []
        for try await (id, kind, variables, once, times, days, zone, next, created) in rows.decode(
            (UUID, String, String, Date?, [Int], [Int], String, Date?, Int64).self)
        {
            let schedule = Notify.Schedule(
                scheduleId: id.uuidString.lowercased(), kind: Notify.Kind(kind),
                variables: (try? JSONDecoder().decode([String: String].self, from: Data(variables.utf8))) ?? [:],
                at: once.map(Self.millis), timesOfDay: times.compactMap { TimeOfDay(minutes: $0)?.text },
                daysOfWeek: days, timeZone: zone, nextAt: next.map(Self.millis))
            schedules.append((schedule, created))
        }
        return schedules
    }

    /// Removes schedule `id` of `userId`; `false` when the user has no such schedule.
    public func delete(_ id: UUID, of userId: UUID) async throws -> Bool {
        let rows = try await client.fetch(
            "DELETE FROM \(unescaped: schema).schedules WHERE id = \(id) AND user_id = \(userId) RETURNING id",
            logger: logger)
        return try await rows.collect().count == 1
    }

    /// Fires every schedule that is due, up to `limit`, in one transaction: the due rows are
    /// locked (`SKIP LOCKED`, so replicas take disjoint rows), their occurrences submitted
    /// together with ids derived from the schedule and the due time, and every `next_at` moved on
    /// in one statement: five statements per round whatever its size. Returns the due time of
    /// each occurrence fired (committed when this returns).
    @discardableResult
    public func fireDue(limit: Int = 500) async throws -> [Date] {
        let now = clock.now()
        return try await client.transaction(logger: logger) { connection in
            let rows = try await connection.fetch(
                """
                SELECT id, user_id, kind, variables::text, once_at, times_of_day, days_of_week, time_zone, next_at
                FROM \(unescaped: schema).schedules WHERE next_at <= \(now)
                ORDER BY next_at LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
                """, logger: logger)
            var submissions: [Submission] = []
            var compositions: [Composer.Occurrence] = []
            var moves: [Move] = []
            var fired: [Date] = []
            for try await (id, userId, kindName, variables, once, times, days, zoneName, dueAt) in rows.decode(
                (UUID, UUID, String, String, Date?, [Int], [Int], String, Date).self)
            {
                let kind = Notify.Kind(kindName)
                let values = (try? JSONDecoder().decode([String: String].self, from: Data(variables.utf8))) ?? [:]
                let occurrence = DerivedID.make("schedule", id.uuidString, "\(ScheduleStore.millis(dueAt))")
                if Self.composedKinds[kind] != nil {
                    compositions.append(
                        .init(
                            notificationId: occurrence, userId: userId, kind: kind,
                            dueAtMs: ScheduleStore.millis(dueAt)))
                } else {
                    do {
                        submissions.append(
                            try Submission(id: occurrence, userId: userId, email: nil, kind: kind, variables: values))
                    } catch {
                        logger.warning(
                            "a schedule's occurrence was refused",
                            metadata: ["scheduleId": "\(id)", "error": "\(SafeErrorDescription.of(error))"])
                    }
                }
                var next: Date?
                if once == nil, let zone = try? LocalTime(zoneName),
                    let recurrence = try? Recurrence(
                        once: nil, times: times.compactMap(TimeOfDay.init(minutes:)), days: Set(days))
                {
                    next = recurrence.next(after: max(now, dueAt), in: zone)
                }
                moves.append(Move(id: id, nextMs: next.map(ScheduleStore.millis)))
                fired.append(dueAt)
            }
            guard !moves.isEmpty else { return [] }
            try await notifications.submitAll(submissions, on: connection)
            if !compositions.isEmpty {
                // One statement for the round's compositions, as submitAll does for notifications.
                let occurrences = String(decoding: try JSONEncoder().encode(compositions), as: UTF8.self)
                try await connection.fetch(
                    """
                    INSERT INTO \(unescaped: schema).jobs (id, kind, payload, state, attempts, max_attempts, run_at,
                        dedupe_key, created_at, updated_at, traceparent)
                    SELECT gen_random_uuid(), \(Composer.jobKind), o.value, 'queued', 0, \(Composer.maxAttempts), \(now),
                        'compose:' || (o.value->>'notificationId'), \(now), \(now), \(JobQueue.currentTraceparent)
                    FROM jsonb_array_elements(\(occurrences)::text::jsonb) AS o(value)
                    ON CONFLICT (dedupe_key) DO NOTHING
                    """, logger: logger)
            }
            let json = String(decoding: try JSONEncoder().encode(moves), as: UTF8.self)
            try await connection.fetch(
                """
                UPDATE \(unescaped: schema).schedules AS s
                SET next_at = CASE WHEN m.next_ms IS NULL THEN NULL ELSE to_timestamp(m.next_ms / 1000.0) END
                FROM jsonb_to_recordset(\(json)::text::jsonb) AS m(id uuid, next_ms int8)
                WHERE s.id = m.id
                """, logger: logger)
            return fired
        }
    }

    /// Where a fired schedule's `next_at` moves (nil: it is spent).
    struct Move: Encodable {
        var id: UUID
        var nextMs: Int64?
        enum CodingKeys: String, CodingKey {
            case id
            case nextMs = "next_ms"
        }
    }
}
