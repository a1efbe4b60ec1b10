import Foundation
import NotifyContract
import PostgresNIO
import Store

/// The batched reads and writes of the deliverer: a constant number of statements per claimed
/// batch, plus two small ones per e-mail for its hand-over.
extension NotificationStore {
    /// The stored notifications among `ids`, by id (a missing one is gone with its user).
    func notifications(_ ids: [UUID]) async throws -> [UUID: Stored] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await client.fetch(
            """
            SELECT id, user_id, email, kind, locale, variables::text, title, body, device::text, not_after
            FROM \(unescaped: schema).notifications
            WHERE id = ANY(\(ids))
            """, logger: logger)
        var found: [UUID: Stored] = [:]
        for try await (id, userId, email, kind, locale, variables, title, body, device, notAfter) in rows.decode(
            (UUID, UUID?, String?, String, String, String, String, String, String?, Date?).self)
        {
            let decoded = try JSONDecoder().decode([String: String].self, from: Data(variables.utf8))
            found[id] = Stored(
                id: id, userId: userId, email: email, kind: Notify.Kind(kind), locale: locale, variables: decoded, title: title,
                body: body,
                device: try device.map { try JSONDecoder().decode(Notify.PushDevice.self, from: Data($0.utf8)) },
                notAfter: notAfter)
        }
        return found
    }

    /// What earlier attempts of the notifications `ids` left behind: the e-mail hand-overs by
    /// state, and the device tokens a push provider already accepted.
    struct EarlierAttempts: Sendable {
        var handovers: [UUID: String] = [:]
        var pushed: [UUID: Set<String>] = [:]
    }

    /// Reads ``EarlierAttempts`` of `ids` (two queries; none when `ids` is empty).
    func earlierAttempts(of ids: [UUID]) async throws -> EarlierAttempts {
        var earlier = EarlierAttempts()
        guard !ids.isEmpty else { return earlier }
        let handovers = try await client.fetch(
            "SELECT notification_id, state FROM \(unescaped: schema).mail_handovers WHERE notification_id = ANY(\(ids))",
            logger: logger)
        for try await (id, state) in handovers.decode((UUID, String).self) { earlier.handovers[id] = state }
        let pushed = try await client.fetch(
            """
            SELECT notification_id, target FROM \(unescaped: schema).deliveries
            WHERE notification_id = ANY(\(ids)) AND channel = 'push' AND outcome = 'sent' AND target IS NOT NULL
            """, logger: logger)
        for try await (id, token) in pushed.decode((UUID, String).self) {
            earlier.pushed[id, default: []].insert(token)
        }
        return earlier
    }

    /// Records (committed when this returns) that the mail of notification `id` is being handed
    /// over (`sending`) or was accepted by the relay (`accepted`).
    func markHandover(_ id: UUID, _ state: String) async throws {
        try await client.fetch(
            """
            INSERT INTO \(unescaped: schema).mail_handovers (notification_id, state, at) VALUES (\(id), \(state), \(clock.now()))
            ON CONFLICT (notification_id) DO UPDATE SET state = EXCLUDED.state, at = EXCLUDED.at
            """, logger: logger)
    }

    /// Forgets the hand-over of a mail the relay refused (it was not accepted).
    func clearHandover(_ id: UUID) async throws {
        try await client.fetch(
            "DELETE FROM \(unescaped: schema).mail_handovers WHERE notification_id = \(id)", logger: logger)
    }

    /// Completes `done` (jobs this claim still holds), appends `lines` to the delivery log and
    /// drops the finished jobs' hand-overs, in one statement; returns how many jobs it completed.
    @discardableResult
    func finish(_ done: [Job], lines: [DeliveryLine]) async throws -> Int {
        guard !done.isEmpty || !lines.isEmpty else { return 0 }
        return try await client.withConnection { try await finish(done, lines: lines, on: $0) }
    }

    /// ``finish(_:lines:)`` in the caller's transaction `tx`, which also appends events.
    @discardableResult
    func finish(_ done: [Job], lines: [DeliveryLine], in tx: Transaction) async throws -> Int {
        try await finish(done, lines: lines, on: tx.connection)
    }

    /// ``finish(_:lines:)`` on `connection`.
    @discardableResult
    func finish(_ done: [Job], lines: [DeliveryLine], on connection: PostgresConnection) async throws -> Int {
        guard !done.isEmpty || !lines.isEmpty else { return 0 }
        let now = clock.now()
        let json = String(decoding: try JSONEncoder().encode(lines), as: UTF8.self)
        let rows = try await connection.fetch(
            """
            WITH done AS (
                UPDATE \(unescaped: schema).jobs AS j SET state = 'done', locked_until = NULL, updated_at = \(now)
                FROM unnest(\(done.map(\.id))::uuid[], \(done.map(\.attempts))::int8[]) AS c(id, attempts)
                WHERE j.id = c.id AND j.state = 'running' AND j.attempts = c.attempts
                RETURNING j.payload
            ), logged AS (
                INSERT INTO \(unescaped: schema).deliveries (notification_id, user_id, channel, target, outcome, detail, at)
                SELECT x.notification_id, x.user_id, x.channel, x.target, x.outcome, x.detail, \(now)
                FROM jsonb_to_recordset(\(json)::text::jsonb) AS x(notification_id uuid, user_id uuid, channel text,
                    target text, outcome text, detail text)
                RETURNING 1
            ), cleared AS (
                DELETE FROM \(unescaped: schema).mail_handovers AS h USING done
                WHERE h.notification_id = (done.payload->>'notificationId')::uuid
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM done)::int8, (SELECT count(*) FROM logged)::int8,
                (SELECT count(*) FROM cleared)::int8
            """, logger: logger)
        for try await (completed, _, _) in rows.decode((Int, Int, Int).self) { return completed }
        return 0
    }
}

extension NotificationStore {
    /// Whether a notification with this id was submitted.
    func exists(_ id: UUID) async throws -> Bool {
        let rows = try await client.fetch(
            "SELECT 1 FROM \(unescaped: schema).notifications WHERE id = \(id)", logger: logger)
        for try await _ in rows { return true }
        return false
    }
}
