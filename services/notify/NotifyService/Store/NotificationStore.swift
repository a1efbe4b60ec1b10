import Contract
import Foundation
import Logging
import NotifyContract
import PostgresNIO
import Store

/// Notifications, inboxes, settings and the delivery log in schema `notify`.
public struct NotificationStore: Sendable {
    /// The pool.
    public let client: PostgresClient
    /// Delivery jobs (`notify.jobs`).
    public let queue: JobQueue
    /// The source of "now".
    public let clock: any WallClock
    let logger: Logger

    /// How many attempts an e-mail or push gets before it is dead-lettered.
    public var maxAttempts = 8
    /// The schema of the tables (the queue's schema).
    public var schema: String { queue.schema }
    /// Transactions on this store's database, for jobs that change it together with the event log.
    public var transactions: Transactions { Transactions(client, logger: logger) }

    /// Creates the store.
    public init(client: PostgresClient, queue: JobQueue, clock: any WallClock, logger: Logger) {
        self.client = client
        self.queue = queue
        self.clock = clock
        self.logger = logger
    }

    /// What a delivery job carries.
    public struct JobPayload: Codable, Sendable {
        public var notificationId: UUID
    }

    /// ``submit(_:on:)`` in the caller's transaction `tx`.
    public func submit(_ submission: Submission, in tx: Transaction) async throws -> Notify.Send.Reply {
        try await submit(submission, on: tx.connection)
    }

    /// Records `submission` and queues its e-mail and push, in the caller's transaction. The same
    /// id with the same content is a no-op (`created: false`); with other content, `conflict`.
    public func submit(_ submission: Submission, on connection: PostgresConnection) async throws -> Notify.Send.Reply {
        var settings = UserSettings()
        if let userId = submission.userId { settings = try await self.settings(of: userId, on: connection) }
        let now = clock.now()
        let prepared = try Prepared(submission, settings: settings, now: now)
        let (kind, locale, rendered, channels) = (
            prepared.kind, prepared.locale, prepared.rendered, prepared.channels
        )
        let (deliverAfter, variables, hash) = (prepared.deliverAfter, prepared.variables, prepared.hash)
        let notAfter = submission.notAfter
        let device = try submission.device.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        let inserted = try await connection.fetch(
            """
            INSERT INTO \(unescaped: schema).notifications (id, user_id, email, kind, locale, critical, variables, title, body,
                request_hash, created_at, deliver_after, not_after, in_inbox, device)
            VALUES (\(submission.id), \(submission.userId), \(submission.email), \(kind.name.rawValue), \(locale),
                \(kind.critical), \(variables)::text::jsonb, \(rendered.title), \(rendered.text), \(hash), \(now),
                \(deliverAfter), \(notAfter), \(channels.contains(Notify.Channel.inapp)), \(device)::text::jsonb)
            ON CONFLICT (id) DO NOTHING
            RETURNING id
            """, logger: logger
        ).collect()
        let id = submission.id.uuidString.lowercased()
        guard inserted.count == 1 else {
            let rows = try await connection.fetch(
                "SELECT request_hash FROM \(unescaped: schema).notifications WHERE id = \(submission.id)",
                logger: logger)
            for try await stored in rows.decode(String.self) where stored != hash {
                throw ServiceError(
                    .conflict, "notification \(id) was already sent with other content",
                    details: ["field": .string("notificationId")])
            }
            return .init(notificationId: id, created: false, channels: channels)
        }
        let payload = try JSONEncoder().encode(JobPayload(notificationId: submission.id))
        for channel in prepared.jobs {
            try await queue.enqueue(
                kind: channel, payload: payload, runAt: deliverAfter, maxAttempts: maxAttempts,
                dedupeKey: "\(id):\(channel)", on: connection)
        }
        for line in prepared.lines(now: now) {
            try await log(
                submission.id, userId: submission.userId, channel: line.channel, outcome: line.outcome,
                detail: line.detail, on: connection)
        }
        return .init(notificationId: id, created: true, channels: channels)
    }

    /// Submits in a transaction of its own.
    public func submit(_ submission: Submission) async throws -> Notify.Send.Reply {
        try await client.transaction(logger: logger) { try await submit(submission, on: $0) }
    }

    /// Appends a line to the delivery log.
    public func log(
        _ notificationId: UUID, userId: UUID?, channel: String, target: String? = nil, outcome: String,
        detail: String?, on connection: PostgresConnection? = nil
    ) async throws {
        let now = clock.now()
        let query: PostgresQuery = """
            INSERT INTO \(unescaped: schema).deliveries (notification_id, user_id, channel, target, outcome, detail, at)
            VALUES (\(notificationId), \(userId), \(channel), \(target), \(outcome), \(detail), \(now))
            """
        if let connection {
            try await connection.fetch(query, logger: logger)
        } else {
            try await client.fetch(query, logger: logger)
        }
    }

    /// A stored notification, as a delivery job needs it.
    public struct Stored: Sendable {
        public var id: UUID
        public var userId: UUID?
        public var email: String?
        public var kind: Notify.Kind
        public var locale: String
        public var variables: [String: String]
        public var title: String
        public var body: String
        /// The one device it is addressed to, when it has no account.
        public var device: Notify.PushDevice? = nil
        /// Not sent at or after this moment.
        public var notAfter: Date? = nil
    }
}

extension NotificationStore {
    /// The user's settings (defaults when never set).
    public func settings(of userId: UUID, on connection: PostgresConnection? = nil) async throws -> UserSettings {
        if let connection { return try await loadSettings(userId, connection) }
        return try await client.withConnection { try await loadSettings(userId, $0) }
    }

    func loadSettings(_ userId: UUID, _ connection: PostgresConnection) async throws -> UserSettings {
        try await loadSettings([userId], connection)[userId] ?? UserSettings()
    }

    /// The settings of those of `userIds` who changed any, in two queries.
    func loadSettings(_ userIds: [UUID], _ connection: PostgresConnection) async throws -> [UUID: UserSettings] {
        var found: [UUID: UserSettings] = [:]
        guard !userIds.isEmpty else { return found }
        let rows = try await connection.fetch(
            """
            SELECT user_id, time_zone, quiet_start, quiet_end, locale FROM \(unescaped: schema).user_settings
            WHERE user_id = ANY(\(userIds))
            """, logger: logger)
        for try await (userId, zone, start, end, locale) in rows.decode((UUID, String, Int?, Int?, String?).self) {
            var settings = UserSettings()
            settings.timeZone = zone
            settings.locale = locale
            if let start, let end, let from = TimeOfDay(minutes: start), let to = TimeOfDay(minutes: end) {
                settings.quiet = QuietWindow(start: from, end: to)
            }
            found[userId] = settings
        }
        let prefs = try await connection.fetch(
            """
            SELECT user_id, kind, channel FROM \(unescaped: schema).preferences
            WHERE user_id = ANY(\(userIds)) AND NOT enabled
            """, logger: logger)
        for try await (userId, kind, channel) in prefs.decode((UUID, String, String).self) {
            found[userId, default: UserSettings()].disabled.insert("\(kind):\(channel)")
        }
        return found
    }

    /// The user's preferences as the API shows them.
    public func preferences(of userId: UUID) async throws -> Notify.Preferences {
        let settings = try await settings(of: userId)
        let channels = settings.disabled.sorted().compactMap { pair -> Notify.ChannelPreference? in
            let parts = pair.split(separator: ":")
            guard parts.count == 2 else { return nil }
            return .init(kind: Notify.Kind(String(parts[0])), channel: String(parts[1]), enabled: false)
        }
        return Notify.Preferences(
            timeZone: settings.timeZone,
            quietHours: settings.quiet.map { .init(start: $0.start.text, end: $0.end.text) }, locale: settings.locale,
            channels: channels)
    }

    /// Replaces the user's preferences; opting out of a critical kind is `failed_precondition`.
    public func setPreferences(_ request: Notify.Preferences, of userId: UUID) async throws -> Notify.Preferences {
        _ = try LocalTime(request.timeZone)
        var quiet: QuietWindow?
        if let hours = request.quietHours {
            quiet = QuietWindow(
                start: try TimeOfDay(parsing: hours.start, field: "quietHours.start"),
                end: try TimeOfDay(parsing: hours.end, field: "quietHours.end"))
        }
        if let locale = request.locale, !["en", "sv"].contains(locale) {
            throw ServiceError.invalidArgument("locale must be en or sv", field: "locale")
        }
        for preference in request.channels {
            let kind = try NotificationCatalog.kind(preference.kind)
            guard Notify.Channel.all.contains(preference.channel) else {
                throw ServiceError.invalidArgument("channel must be email, push or inapp", field: "channels")
            }
            if kind.critical && !preference.enabled {
                throw ServiceError(
                    .failedPrecondition, "\(kind.name) is critical and cannot be switched off",
                    details: ["field": .string("channels"), "kind": .string(kind.name.rawValue)])
            }
        }
        let now = clock.now()
        try await client.transaction(logger: logger) { connection in
            try await connection.fetch(
                """
                INSERT INTO \(unescaped: schema).user_settings (user_id, time_zone, quiet_start, quiet_end, locale, updated_at)
                VALUES (\(userId), \(request.timeZone), \(quiet?.start.minutes), \(quiet?.end.minutes),
                    \(request.locale), \(now))
                ON CONFLICT (user_id) DO UPDATE SET time_zone = EXCLUDED.time_zone,
                    quiet_start = EXCLUDED.quiet_start, quiet_end = EXCLUDED.quiet_end, locale = EXCLUDED.locale,
                    updated_at = EXCLUDED.updated_at
                """, logger: logger)
            try await connection.fetch(
                "DELETE FROM \(unescaped: schema).preferences WHERE user_id = \(userId)", logger: logger)
            for preference in Set(request.channels) where !preference.enabled {
                try await connection.fetch(
                    """
                    INSERT INTO \(unescaped: schema).preferences (user_id, kind, channel, enabled)
                    VALUES (\(userId), \(preference.kind.rawValue), \(preference.channel), false)
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
        }
        return try await preferences(of: userId)
    }

    /// Removes everything notify keeps about `userId` (after `auth.account_deleted`), in the
    /// consumer's transaction `tx`.
    public func forget(_ userId: UUID, in tx: Transaction) async throws {
        try await forget(userId, on: tx.connection)
    }

    /// ``forget(_:in:)`` on `connection`.
    public func forget(_ userId: UUID, on connection: PostgresConnection) async throws {
        for table in ["notifications", "preferences", "user_settings", "deliveries", "schedules"] {
            try await connection.fetch(
                "DELETE FROM \(unescaped: schema).\(unescaped: table) WHERE user_id = \(userId)", logger: logger)
        }
    }
}
