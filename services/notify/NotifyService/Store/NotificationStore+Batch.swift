import Contract
import Foundation
import NotifyContract
import PostgresNIO
import Store

extension NotificationStore {
    /// A submission worked out for a user's settings: locale, rendering, channels, when it may go.
    struct Prepared: Sendable {
        var submission: Submission
        var kind: NotificationKind
        var locale: String
        var rendered: Template.Rendered
        /// The channels the kind has that can reach this recipient.
        var possible: [String]
        /// Those left after the user's opt-outs (critical kinds ignore them).
        var channels: [String]
        var deliverAfter: Date
        /// The external channels (e-mail, push) queued for delivery at ``deliverAfter``: none
        /// when that is at or after the submission's `notAfter`.
        var jobs: [String]
        /// The external channels not queued because they would go out too late.
        var expired: [String]
        /// The variables as JSON text.
        var variables: String
        var hash: String

        init(_ submission: Submission, settings: UserSettings, now: Date) throws {
            self.submission = submission
            kind = try NotificationCatalog.kind(submission.kind)
            let wanted = submission.locale ?? settings.locale ?? "en"
            locale = kind.templates[wanted] == nil ? "en" : wanted
            rendered = kind.template(for: locale).render(submission.variables)
            possible = kind.channels.filter { channel in
                // A device addressed without an account is pushed, nothing else.
                if submission.device != nil { return channel == Notify.Channel.push }
                return channel == Notify.Channel.email || submission.userId != nil
            }
            let kind = kind
            channels = possible.filter { kind.critical || settings.allows(kind: kind.name, channel: $0) }
            deliverAfter = kind.critical ? now : settings.deliverAfter(now)
            let external = channels.filter { $0 != Notify.Channel.inapp }
            if let notAfter = submission.notAfter, deliverAfter >= notAfter {
                jobs = []
                expired = external
            } else {
                jobs = external
                expired = []
            }
            variables = String(decoding: try JSONEncoder().encode(submission.variables), as: UTF8.self)
            hash = submission.contentHash
        }

        /// Why an expired channel is not sent, for the delivery log.
        static func expiredDetail(deliverAfter: Date, now: Date) -> String {
            deliverAfter > now
                ? "not sent: quiet hours end after its notAfter" : "not sent: its notAfter has passed"
        }

        /// The delivery-log lines written with the notification.
        func lines(now: Date) -> [Row.Line] {
            var lines = possible.filter { !channels.contains($0) }.map {
                Row.Line(channel: $0, outcome: "skipped", detail: "switched off by the user")
            }
            let detail = Self.expiredDetail(deliverAfter: deliverAfter, now: now)
            lines += expired.map { Row.Line(channel: $0, outcome: "skipped", detail: detail) }
            if channels.contains(Notify.Channel.inapp) {
                lines.append(.init(channel: Notify.Channel.inapp, outcome: "sent", detail: nil))
            }
            return lines
        }

        /// One row of ``submitAll(_:on:)``'s input.
        func row(now: Date) -> Row {
            let lines = lines(now: now)
            return Row(
                id: submission.id, userId: submission.userId, email: submission.email, kind: kind.name,
                locale: locale, critical: kind.critical, variables: variables, title: rendered.title,
                body: rendered.text, hash: hash,
                deliverAfterMs: Int64((deliverAfter.timeIntervalSince1970 * 1000).rounded()),
                notAfterMs: submission.notAfter.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) },
                inInbox: channels.contains(Notify.Channel.inapp), jobs: jobs, lines: lines)
        }

        /// A notification, its jobs and its log lines as JSON for `jsonb_to_recordset`.
        struct Row: Encodable {
            struct Line: Encodable {
                var channel: String
                var outcome: String
                var detail: String?
            }
            var id: UUID
            var userId: UUID?
            var email: String?
            var kind: Notify.Kind
            var locale: String
            var critical: Bool
            var variables: String
            var title: String
            var body: String
            var hash: String
            var deliverAfterMs: Int64
            var notAfterMs: Int64?
            var inInbox: Bool
            var jobs: [String]
            var lines: [Line]

            enum CodingKeys: String, CodingKey {
                case id, email, kind, locale, critical, variables, title, body, hash, jobs, lines
                case userId = "user_id"
                case deliverAfterMs = "deliver_after_ms"
                case notAfterMs = "not_after_ms"
                case inInbox = "in_inbox"
            }
        }
    }

    /// Records many submissions in the caller's transaction with three statements whatever their
    /// number: the users' settings (two queries), then notifications, delivery jobs and log lines
    /// in one. An id already recorded is left as it is, without the content check of
    /// ``submit(_:on:)``: this is for triggers whose ids derive from their content (schedule
    /// occurrences). A submission its kind refuses is left out. Returns how many were new.
    @discardableResult
    public func submitAll(_ submissions: [Submission], on connection: PostgresConnection) async throws -> Int {
        guard !submissions.isEmpty else { return 0 }
        let settings = try await loadSettings(Array(Set(submissions.compactMap(\.userId))), connection)
        let now = clock.now()
        let rows = submissions.compactMap { submission in
            try? Prepared(submission, settings: submission.userId.flatMap { settings[$0] } ?? UserSettings(), now: now)
                .row(now: now)
        }
        let json = String(decoding: try JSONEncoder().encode(rows), as: UTF8.self)
        let result = try await connection.fetch(
            """
            WITH input AS (
                SELECT * FROM jsonb_to_recordset(\(json)::text::jsonb) AS x(id uuid, user_id uuid, email text,
                    kind text, locale text, critical boolean, variables text, title text, body text, hash text,
                    deliver_after_ms int8, not_after_ms int8, in_inbox boolean, jobs text[], lines jsonb)
            ), inserted AS (
                INSERT INTO \(unescaped: schema).notifications (id, user_id, email, kind, locale, critical, variables,
                    title, body, request_hash, created_at, deliver_after, not_after, in_inbox)
                SELECT id, user_id, email, kind, locale, critical, variables::jsonb, title, body, hash, \(now),
                    to_timestamp(deliver_after_ms / 1000.0), to_timestamp(not_after_ms / 1000.0), in_inbox
                FROM input
                ON CONFLICT (id) DO NOTHING
                RETURNING id
            ), queued AS (
                INSERT INTO \(unescaped: schema).jobs (id, kind, payload, state, attempts, max_attempts, run_at,
                    dedupe_key, created_at, updated_at, traceparent)
                SELECT gen_random_uuid(), c.channel, jsonb_build_object('notificationId', i.id), 'queued', 0,
                    \(maxAttempts), to_timestamp(i.deliver_after_ms / 1000.0), i.id::text || ':' || c.channel, \(now),
                    \(now), \(JobQueue.currentTraceparent)
                FROM input AS i JOIN inserted USING (id) CROSS JOIN LATERAL unnest(i.jobs) AS c(channel)
                ON CONFLICT (dedupe_key) DO NOTHING
                RETURNING 1
            ), logged AS (
                INSERT INTO \(unescaped: schema).deliveries (notification_id, user_id, channel, outcome, detail, at)
                SELECT i.id, i.user_id, l.channel, l.outcome, l.detail, \(now)
                FROM input AS i JOIN inserted USING (id)
                    CROSS JOIN LATERAL jsonb_to_recordset(i.lines) AS l(channel text, outcome text, detail text)
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM inserted)::int8, (SELECT count(*) FROM queued)::int8,
                (SELECT count(*) FROM logged)::int8
            """, logger: logger)
        for try await (inserted, _, _) in result.decode((Int, Int, Int).self) { return inserted }
        return 0
    }
}
