import Foundation
import PostgresNIO
import RoutingContract
import Store

/// The tables behind class notices: `routing.class_reminder_settings` (who wants reminders, how
/// long before), `routing.class_reminders_sent` (each student reminded at most once per
/// occurrence) and `routing.timetable_version` (moved by every change, so replicas drop what
/// they hold).
extension TimetableStore {
    /// The meetings with these UIDs, by UID, read on the transaction's connection.
    func meetings(uids: [String], in tx: Transaction) async throws -> [String: Meeting] {
        guard !uids.isEmpty else { return [:] }
        let connection = tx.connection
        let idRows = try await connection.fetch(
            "SELECT id, uid FROM routing.class_meetings WHERE uid = ANY(\(uids))", logger: logger)
        var uidOf: [UUID: String] = [:]
        for try await (id, uid) in idRows.decode((UUID, String).self) { uidOf[id] = uid }
        guard !uidOf.isEmpty else { return [:] }
        let rows = try await connection.fetch(
            """
            SELECT \(unescaped: Self.meetingColumns)
            FROM routing.class_meetings m JOIN routing.modules mo ON mo.code = m.module_code
            WHERE m.id = ANY(\(Array(uidOf.keys)))
            """, logger: logger)
        var result: [String: Meeting] = [:]
        for meeting in try await Self.meetings(rows) {
            if let uid = uidOf[meeting.id] { result[uid] = meeting }
        }
        return result
    }

    /// The students enrolled in a module (lower-case UUIDs, sorted).
    func enrolled(in code: String, in tx: Transaction) async throws -> [String] {
        let rows = try await tx.connection.fetch(
            "SELECT user_id FROM routing.enrolments WHERE module_code = \(code) ORDER BY user_id", logger: logger)
        var users: [String] = []
        for try await user in rows.decode(UUID.self) { users.append(user.uuidString.lowercased()) }
        return users
    }

    /// Moves the timetable's version (in the transaction of a change).
    func bumpVersion(on connection: PostgresConnection) async throws {
        try await connection.fetch(
            "UPDATE routing.timetable_version SET version = version + 1 WHERE id = 1", logger: logger)
    }

    /// The timetable's version: it moves with every import that changes something and every
    /// module deletion.
    public func version() async throws -> Int64 {
        let rows = try await client.fetch("SELECT version FROM routing.timetable_version WHERE id = 1", logger: logger)
        for try await version in rows.decode(Int64.self) { return version }
        return 0
    }

    /// The user's reminder lead in minutes; nil when reminders are off.
    public func reminderMinutes(of user: UUID) async throws -> Int? {
        let rows = try await client.fetch(
            "SELECT minutes_before FROM routing.class_reminder_settings WHERE user_id = \(user)", logger: logger)
        for try await minutes in rows.decode(Int.self) { return minutes }
        return nil
    }

    /// Sets (or with nil, removes) the user's reminder lead.
    public func setReminderMinutes(_ minutes: Int?, of user: UUID, now: Date) async throws {
        if let minutes {
            try await client.fetch(
                """
                INSERT INTO routing.class_reminder_settings (user_id, minutes_before, updated_at)
                VALUES (\(user), \(minutes), \(now))
                ON CONFLICT (user_id) DO UPDATE SET minutes_before = excluded.minutes_before, updated_at = excluded.updated_at
                """, logger: logger)
        } else {
            try await client.fetch(
                "DELETE FROM routing.class_reminder_settings WHERE user_id = \(user)", logger: logger)
        }
    }

    /// The meetings of modules that a student with reminders on takes and that may have an
    /// occurrence starting in `(from, to]`.
    func remindedMeetings(from: Date, to: Date) async throws -> [Meeting] {
        let rows = try await client.fetch(
            """
            SELECT \(unescaped: Self.meetingColumns)
            FROM routing.class_meetings m JOIN routing.modules mo ON mo.code = m.module_code
            WHERE m.first_start <= \(to) AND (m.last_end IS NULL OR m.last_end > \(from))
              AND m.module_code IN (
                SELECT DISTINCT e.module_code FROM routing.enrolments e
                JOIN routing.class_reminder_settings s ON s.user_id = e.user_id)
            """, logger: logger)
        return try await Self.meetings(rows)
    }

    /// Records, for each of these occurrences, the enrolled students with reminders on whose
    /// lead has come at `now` and who were not reminded of it yet; answers them per occurrence
    /// (index into `occurrences`). Two replicas doing this at once remind nobody twice: the
    /// second insert waits for the first and finds the rows there.
    func claimReminders(
        _ occurrences: [(meetingId: UUID, moduleCode: String, start: Date)], now: Date,
        in tx: Transaction
    ) async throws -> [Int: [String]] {
        guard !occurrences.isEmpty else { return [:] }
        let rows = try await tx.connection.fetch(
            """
            WITH o AS (
              SELECT * FROM unnest(\(occurrences.map { $0.meetingId })::uuid[], \(occurrences.map { $0.moduleCode })::text[],
                                   \(occurrences.map { $0.start })::timestamptz[])
                WITH ORDINALITY AS o (meeting_id, module_code, start, n))
            INSERT INTO routing.class_reminders_sent (user_id, meeting_id, occurrence_start, sent_at)
            SELECT e.user_id, o.meeting_id, o.start, \(now)
            FROM o JOIN routing.enrolments e ON e.module_code = o.module_code
            JOIN routing.class_reminder_settings s ON s.user_id = e.user_id
            WHERE o.start - make_interval(mins => s.minutes_before) <= \(now) AND o.start > \(now)
            ON CONFLICT DO NOTHING
            RETURNING user_id, meeting_id, occurrence_start
            """, logger: logger)
        // Keyed by whole milliseconds: a timestamp read back is not always the same Double.
        func key(_ meeting: UUID, _ start: Date) -> String {
            "\(meeting)|\(Int64((start.timeIntervalSince1970 * 1000).rounded()))"
        }
        var index: [String: Int] = [:]
        for (position, occurrence) in occurrences.enumerated() {
            index[key(occurrence.meetingId, occurrence.start)] = position
        }
        var claimed: [Int: [String]] = [:]
        for try await (user, meeting, start) in rows.decode((UUID, UUID, Date).self) {
            guard let position = index[key(meeting, start)] else { continue }
            claimed[position, default: []].append(user.uuidString.lowercased())
        }
        return claimed.mapValues { $0.sorted() }
    }

    /// Forgets which reminders were sent for occurrences that started before `before`.
    func pruneReminders(before: Date) async throws {
        try await client.fetch(
            "DELETE FROM routing.class_reminders_sent WHERE occurrence_start < \(before)", logger: logger)
    }
}
