import Contract
import Foundation
import Logging
import PostgresNIO
import RoutingContract
import ServiceKit
import Store

/// The timetable tables: `routing.modules`, `routing.class_meetings`, `routing.enrolments` and
/// `routing.timetable_feeds`.
public struct TimetableStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// A stored class meeting with its module's name.
    public struct Meeting: Sendable, Equatable {
        public var id: UUID
        public var moduleCode: String
        public var moduleName: String
        public var kind: String
        public var venueId: UUID?
        public var location: String
        public var schedule: MeetingSchedule
    }

    /// What an import changed.
    public struct ImportCounts: Sendable, Equatable {
        public var modulesCreated = 0
        public var modulesUpdated = 0
        public var meetingsCreated = 0
        public var meetingsUpdated = 0
        public var meetingsUnchanged = 0
        public var meetingsCancelled = 0
    }

    /// Stores the entries (modules created or updated, meetings matched on their UID) and drops
    /// the cancelled meetings, in `tx`; moves the timetable's version when anything changed.
    /// `venues` maps an entry's UID to its venue.
    public func save(_ parsed: ParsedTimetable, venues: [String: UUID], now: Date, in tx: Transaction) async throws
        -> ImportCounts
    {
        let connection = tx.connection
        let logger = tx.logger
        var counts = ImportCounts()
        var modules: [String: (name: String?, faculty: String?)] = [:]
        for entry in parsed.entries {
            let known = modules[entry.moduleCode]
            modules[entry.moduleCode] = (known?.name ?? entry.moduleName, known?.faculty ?? entry.faculty)
        }
        for (code, module) in modules.sorted(by: { $0.key < $1.key }) {
            let rows = try await connection.fetch(
                """
                INSERT INTO routing.modules (code, name, faculty, updated_at)
                VALUES (\(code), coalesce(\(module.name)::text, \(code)), coalesce(\(module.faculty)::text, ''), \(now))
                ON CONFLICT (code) DO UPDATE SET
                  name = coalesce(\(module.name)::text, modules.name),
                  faculty = coalesce(\(module.faculty)::text, modules.faculty), updated_at = excluded.updated_at
                WHERE (modules.name, modules.faculty)
                  IS DISTINCT FROM (coalesce(\(module.name)::text, modules.name), coalesce(\(module.faculty)::text, modules.faculty))
                RETURNING (xmax = 0)
                """, logger: logger)
            for try await inserted in rows.decode(Bool.self) {
                if inserted { counts.modulesCreated += 1 } else { counts.modulesUpdated += 1 }
            }
        }
        for entry in parsed.entries {
            let schedule = entry.schedule
            let recurrence = schedule.recurrence
            let weekdays = recurrence.map { $0.weekdays.map { Int32($0) } }
            let exceptions = schedule.exceptions.sorted()
            let venue = venues[entry.uid]
            let rows = try await connection.fetch(
                """
                INSERT INTO routing.class_meetings AS m (
                  id, uid, module_code, kind, venue_id, location, time_zone, local_start, first_start, last_end,
                  duration_seconds, weekdays, interval_weeks, week_start, until, max_count, exceptions, updated_at)
                VALUES (
                  \(UUID()), \(entry.uid), \(entry.moduleCode), \(entry.kind), \(venue), \(entry.location),
                  \(schedule.zone.identifier), \(schedule.start.description), \(schedule.firstStart), \(schedule.lastEnd),
                  \(schedule.duration), \(weekdays)::int[], \(recurrence?.interval ?? 1), \(recurrence?.weekStart ?? 1),
                  \(recurrence?.until), \(recurrence?.count), \(exceptions)::timestamptz[], \(now))
                ON CONFLICT (uid) DO UPDATE SET
                  module_code = excluded.module_code, kind = excluded.kind, venue_id = excluded.venue_id,
                  location = excluded.location, time_zone = excluded.time_zone, local_start = excluded.local_start,
                  first_start = excluded.first_start, last_end = excluded.last_end,
                  duration_seconds = excluded.duration_seconds, weekdays = excluded.weekdays,
                  interval_weeks = excluded.interval_weeks, week_start = excluded.week_start,
                  until = excluded.until, max_count = excluded.max_count, exceptions = excluded.exceptions,
                  updated_at = excluded.updated_at
                WHERE (m.module_code, m.kind, m.venue_id, m.location, m.time_zone, m.local_start,
                       m.duration_seconds, m.weekdays, m.interval_weeks, m.week_start, m.until, m.max_count,
                       m.exceptions)
                  IS DISTINCT FROM (excluded.module_code, excluded.kind, excluded.venue_id, excluded.location,
                       excluded.time_zone, excluded.local_start, excluded.duration_seconds, excluded.weekdays,
                       excluded.interval_weeks, excluded.week_start, excluded.until, excluded.max_count,
                       excluded.exceptions)
                RETURNING (xmax = 0)
                """, logger: logger)
            var changed = false
            for try await inserted in rows.decode(Bool.self) {
                changed = true
                if inserted { counts.meetingsCreated += 1 } else { counts.meetingsUpdated += 1 }
            }
            if !changed { counts.meetingsUnchanged += 1 }
        }
        if !parsed.cancelled.isEmpty {
            let rows = try await connection.fetch(
                "DELETE FROM routing.class_meetings WHERE uid = ANY(\(parsed.cancelled)) RETURNING id",
                logger: logger)
            for try await _ in rows { counts.meetingsCancelled += 1 }
        }
        if counts.meetingsCreated + counts.meetingsUpdated + counts.meetingsCancelled + counts.modulesUpdated > 0 {
            try await bumpVersion(on: connection)
        }
        return counts
    }

    /// What concerns a user: their module codes, those modules' faculties (as
    /// `TimetableNames.matchKey`) and the venues (ids, lower case) of their classes.
    public func concerns(of user: UUID) async throws -> (modules: Set<String>, faculties: Set<String>, venues: Set<String>) {
        var modules = Set<String>()
        var faculties = Set<String>()
        var venues = Set<String>()
        let rows = try await client.fetch(
            """
            SELECT mo.code, mo.faculty FROM routing.enrolments e JOIN routing.modules mo ON mo.code = e.module_code
            WHERE e.user_id = \(user)
            """, logger: logger)
        for try await (code, faculty) in rows.decode((String, String).self) {
            modules.insert(code)
            if !faculty.isEmpty { faculties.insert(TimetableNames.matchKey(faculty)) }
        }
        let venueRows = try await client.fetch(
            """
            SELECT DISTINCT m.venue_id FROM routing.enrolments e
            JOIN routing.class_meetings m ON m.module_code = e.module_code
            WHERE e.user_id = \(user) AND m.venue_id IS NOT NULL
            """, logger: logger)
        for try await venue in venueRows.decode(UUID.self) { venues.insert(venue.uuidString.lowercased()) }
        return (modules, faculties, venues)
    }

    /// Every module with its number of meetings, by code.
    public func modules() async throws -> [Routing.Module] {
        let rows = try await client.fetch(
            """
            SELECT mo.code, mo.name, mo.faculty,
                   (SELECT count(*) FROM routing.class_meetings m WHERE m.module_code = mo.code)
            FROM routing.modules mo ORDER BY mo.code
            """, logger: logger)
        var modules: [Routing.Module] = []
        for try await (code, name, faculty, meetings) in rows.decode((String, String, String, Int).self) {
            modules.append(.init(code: code, name: name, faculty: faculty, meetings: meetings))
        }
        return modules
    }

    /// The UIDs of a module's meetings, read in `tx`.
    public func meetingUIDs(module code: String, in tx: Transaction) async throws -> [String] {
        let rows = try await tx.connection.fetch(
            "SELECT uid FROM routing.class_meetings WHERE module_code = \(code)", logger: tx.logger)
        var uids: [String] = []
        for try await uid in rows.decode(String.self) { uids.append(uid) }
        return uids
    }

    /// Deletes a module with its meetings and enrolments in `tx`, moving the timetable's version;
    /// false when there was none.
    public func deleteModule(_ code: String, in tx: Transaction) async throws -> Bool {
        let rows = try await tx.connection.fetch(
            "DELETE FROM routing.modules WHERE code = \(code) RETURNING code", logger: tx.logger)
        var deleted = false
        for try await _ in rows { deleted = true }
        guard deleted else { return false }
        try await bumpVersion(on: tx.connection)
        return true
    }

    /// Whether any module is stored (the sample timetable is imported only into an empty one).
    public func hasModules() async throws -> Bool {
        let rows = try await client.fetch("SELECT EXISTS (SELECT 1 FROM routing.modules)", logger: logger)
        for try await exists in rows.decode(Bool.self) { return exists }
        return false
    }

    /// Replaces the user's modules. Returns the codes no module has (nothing is changed then).
    public func setModules(_ codes: [String], of user: UUID) async throws -> [String] {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.fetch(
                "SELECT code FROM routing.modules WHERE code = ANY(\(codes))", logger: logger)
            var known = Set<String>()
            for try await code in rows.decode(String.self) { known.insert(code) }
            let unknown = codes.filter { !known.contains($0) }
            guard unknown.isEmpty else { return unknown }
            try await connection.fetch("DELETE FROM routing.enrolments WHERE user_id = \(user)", logger: logger)
            try await connection.fetch(
                """
                INSERT INTO routing.enrolments (user_id, module_code)
                SELECT \(user), code FROM unnest(\(codes)::text[]) AS code ON CONFLICT DO NOTHING
                """, logger: logger)
            return []
        }
    }

    /// The user's module codes, sorted.
    public func modules(of user: UUID) async throws -> [String] {
        let rows = try await client.fetch(
            "SELECT module_code FROM routing.enrolments WHERE user_id = \(user) ORDER BY module_code", logger: logger)
        var codes: [String] = []
        for try await code in rows.decode(String.self) { codes.append(code) }
        return codes
    }

    static let meetingColumns = """
        m.id, m.module_code, mo.name, m.kind, m.venue_id, m.location, m.time_zone, m.local_start,
        m.duration_seconds, m.weekdays, m.interval_weeks, m.week_start, m.until, m.max_count, m.exceptions
        """

    /// The meetings of the user's modules that may have occurrences in `[from, to)`.
    public func meetings(of user: UUID, from: Date, to: Date) async throws -> [Meeting] {
        let rows = try await client.fetch(
            """
            SELECT \(unescaped: Self.meetingColumns)
            FROM routing.enrolments e
            JOIN routing.class_meetings m ON m.module_code = e.module_code
            JOIN routing.modules mo ON mo.code = m.module_code
            WHERE e.user_id = \(user) AND m.first_start < \(to) AND (m.last_end IS NULL OR m.last_end > \(from))
            """, logger: logger)
        return try await Self.meetings(rows)
    }

    /// Every stored meeting of the modules `codes` (what ``ModuleMemo`` holds).
    public func meetings(modules codes: [String]) async throws -> [Meeting] {
        let rows = try await client.fetch(
            """
            SELECT \(unescaped: Self.meetingColumns)
            FROM routing.class_meetings m JOIN routing.modules mo ON mo.code = m.module_code
            WHERE m.module_code = ANY(\(codes))
            """, logger: logger)
        return try await Self.meetings(rows)
    }

    /// Every stored meeting of a module (admin reads, tests).
    public func meetings(module code: String) async throws -> [Meeting] {
        let rows = try await client.fetch(
            """
            SELECT \(unescaped: Self.meetingColumns)
            FROM routing.class_meetings m JOIN routing.modules mo ON mo.code = m.module_code
            WHERE m.module_code = \(code) ORDER BY m.uid
            """, logger: logger)
        return try await Self.meetings(rows)
    }

    static func meetings(_ rows: FetchedRows) async throws -> [Meeting] {
        var meetings: [Meeting] = []
        for try await row in rows {
            let (id, code, name, kind, venue, location, zoneName, localStart, duration, weekdays, interval, weekStart,
                until, count, exceptions) = try row.decode(
                    (UUID, String, String, String, UUID?, String, String, String, Int, [Int32]?, Int, Int, Date?, Int?,
                        [Date]).self)
            guard let zone = TimeZone(identifier: zoneName), let start = LocalDateTime(localStart) else { continue }
            let recurrence = weekdays.map {
                WeeklyRecurrence(
                    weekdays: $0.map(Int.init), interval: interval, until: until, count: count, weekStart: weekStart)
            }
            meetings.append(
                Meeting(
                    id: id, moduleCode: code, moduleName: name, kind: kind, venueId: venue, location: location,
                    schedule: MeetingSchedule(
                        start: start, zone: zone, duration: duration, recurrence: recurrence,
                        exceptions: Set(exceptions))))
        }
        return meetings
    }

    /// The user's feed secret, made (from `make`) when the user has none.
    public func feedSecret(of user: UUID, make: () -> String, now: Date) async throws -> String {
        let rows = try await client.fetch(
            """
            WITH made AS (
              INSERT INTO routing.timetable_feeds (user_id, secret, created_at) VALUES (\(user), \(make()), \(now))
              ON CONFLICT (user_id) DO NOTHING RETURNING secret)
            SELECT secret FROM made UNION ALL SELECT secret FROM routing.timetable_feeds WHERE user_id = \(user)
            """, logger: logger)
        for try await secret in rows.decode(String.self) { return secret }
        throw PostgresNoSecret()
    }

    struct PostgresNoSecret: Error {}

    /// Whose feed `secret` is; nil when none (or revoked).
    public func feedOwner(secret: String) async throws -> UUID? {
        let rows = try await client.fetch(
            "SELECT user_id FROM routing.timetable_feeds WHERE secret = \(secret)", logger: logger)
        for try await user in rows.decode(UUID.self) { return user }
        return nil
    }

    /// Revokes the user's feed; false when there was none.
    public func revokeFeed(of user: UUID) async throws -> Bool {
        let rows = try await client.fetch(
            "DELETE FROM routing.timetable_feeds WHERE user_id = \(user) RETURNING user_id", logger: logger)
        for try await _ in rows { return true }
        return false
    }

    /// Forgets a deleted account's modules, feed and attendances.
    public func forget(_ user: UUID, in tx: Transaction) async throws {
        let connection = tx.connection
        let logger = tx.logger
        try await connection.fetch("DELETE FROM routing.enrolments WHERE user_id = \(user)", logger: logger)
        try await connection.fetch("DELETE FROM routing.class_attendance WHERE user_id = \(user)", logger: logger)
        try await connection.fetch("DELETE FROM routing.timetable_feeds WHERE user_id = \(user)", logger: logger)
        try await connection.fetch(
            "DELETE FROM routing.class_reminder_settings WHERE user_id = \(user)", logger: logger)
        try await connection.fetch("DELETE FROM routing.class_reminders_sent WHERE user_id = \(user)", logger: logger)
    }
}
