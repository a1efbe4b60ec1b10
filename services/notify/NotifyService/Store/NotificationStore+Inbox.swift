import Contract
import Foundation
import NotifyContract
import PostgresNIO

extension NotificationStore {
    /// A page of the user's inbox, newest first; the cursor is the id of the last item shown.
    public func inbox(of userId: UUID, _ request: Notify.ListInbox.Request) async throws -> Notify.ListInbox.Reply {
        let limit = request.limit ?? 50
        guard (1...200).contains(limit) else {
            throw ServiceError.invalidArgument("limit must be 1-200", field: "limit")
        }
        var after: UUID?
        if let cursor = request.cursor, !cursor.isEmpty {
            guard let id = UUID(uuidString: cursor) else {
                throw ServiceError.invalidArgument("cursor is not one this API gave out", field: "cursor")
            }
            after = id
        }
        let rows = try await client.fetch(
            """
            SELECT id, kind, title, body, created_at, read_at IS NOT NULL FROM \(unescaped: schema).notifications n
            WHERE user_id = \(userId) AND in_inbox
              AND (NOT \(request.unreadOnly) OR read_at IS NULL)
              AND (\(after)::uuid IS NULL OR (created_at, id) < (
                    SELECT created_at, id FROM \(unescaped: schema).notifications WHERE id = \(after)))
            ORDER BY created_at DESC, id DESC
            LIMIT \(limit + 1)
            """, logger: logger)
        var items: [Notify.InboxItem] = []
        for try await (id, kind, title, body, createdAt, read) in rows.decode(
            (UUID, String, String, String, Date, Bool).self)
        {
            items.append(
                .init(
                    notificationId: id.uuidString.lowercased(), kind: Notify.Kind(kind), title: title, body: body,
                    createdAt: Int64((createdAt.timeIntervalSince1970 * 1000).rounded()), read: read))
        }
        var next: String?
        if items.count > limit {
            items.removeLast()
            next = items.last?.notificationId
        }
        return .init(items: items, nextCursor: next, unreadCount: try await unreadCount(of: userId))
    }

    /// How many inbox items the user has not read.
    public func unreadCount(of userId: UUID) async throws -> Int {
        let rows = try await client.fetch(
            """
            SELECT count(*)::int8 FROM \(unescaped: schema).notifications WHERE user_id = \(userId) AND in_inbox
              AND read_at IS NULL
            """, logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// Marks one of the user's items read (again is fine); `not_found` if it is not theirs.
    public func markRead(_ id: String, of userId: UUID) async throws -> Int {
        guard let notificationId = UUID(uuidString: id) else {
            throw ServiceError.invalidArgument("notificationId must be a UUID", field: "notificationId")
        }
        let rows = try await client.fetch(
            """
            UPDATE \(unescaped: schema).notifications SET read_at = coalesce(read_at, \(clock.now()))
            WHERE id = \(notificationId) AND user_id = \(userId) AND in_inbox
            RETURNING id
            """, logger: logger)
        guard try await rows.collect().count == 1 else {
            throw ServiceError(.notFound, "no notification \(id) in this inbox")
        }
        return try await unreadCount(of: userId)
    }

    /// The user's delivery log, newest first.
    public func deliveries(of userId: UUID, limit: Int = 200) async throws -> [Notify.Delivery] {
        let rows = try await client.fetch(
            """
            SELECT notification_id, channel, outcome, detail, at FROM \(unescaped: schema).deliveries
            WHERE user_id = \(userId) ORDER BY at DESC, id DESC LIMIT \(limit)
            """, logger: logger)
        var lines: [Notify.Delivery] = []
        for try await (id, channel, outcome, detail, at) in rows.decode((UUID, String, String, String?, Date).self) {
            lines.append(
                .init(
                    notificationId: id.uuidString.lowercased(), channel: channel, outcome: outcome, detail: detail,
                    at: Int64((at.timeIntervalSince1970 * 1000).rounded())))
        }
        return lines
    }
}
