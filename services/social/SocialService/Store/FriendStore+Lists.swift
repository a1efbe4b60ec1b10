import Contract
import Foundation
import PostgresNIO
import SocialContract
import Store

extension FriendStore {
    /// One row of a list: the other user, their names, and the row's time.
    struct ListedPerson: Sendable {
        let id: UUID
        let username: String
        let displayName: String?
        /// The row's time, microseconds since the epoch (exact, for the cursor).
        let micros: Int64
    }

    /// `user`'s friends, newest friendship first, after `cursor`; `limit` rows at most.
    func friends(of user: UUID, after cursor: KeysetCursor?, limit: Int) async throws -> [ListedPerson] {
        let micros = cursor?.micros ?? Int64.max
        let id = cursor?.id ?? UUID(uuidString: "ffffffff-ffff-ffff-ffff-ffffffffffff")!
        let rows = try await client.fetch(
            """
            SELECT f.friend_id, p.username, p.display_name, (extract(epoch FROM f.since) * 1000000)::bigint
            FROM social.friendships f JOIN social.people p ON p.user_id = f.friend_id
            WHERE f.user_id = \(user)
              AND ((extract(epoch FROM f.since) * 1000000)::bigint, f.friend_id) < (\(micros), \(id))
            ORDER BY f.since DESC, f.friend_id DESC LIMIT \(limit)
            """, logger: logger)
        return try await Self.listed(rows)
    }

    /// Requests to `user` (`incoming`) or from `user` (`outgoing`), newest first, after `cursor`.
    func requests(
        of user: UUID, _ direction: Social.Direction, after cursor: KeysetCursor?, limit: Int
    ) async throws -> [ListedPerson] {
        let micros = cursor?.micros ?? Int64.max
        let id = cursor?.id ?? UUID(uuidString: "ffffffff-ffff-ffff-ffff-ffffffffffff")!
        let rows =
            switch direction {
            case .incoming:
                try await client.fetch(
                    """
                    SELECT r.from_user, p.username, p.display_name, (extract(epoch FROM r.created_at) * 1000000)::bigint
                    FROM social.friend_requests r JOIN social.people p ON p.user_id = r.from_user
                    WHERE r.to_user = \(user) AND ((extract(epoch FROM r.created_at) * 1000000)::bigint, r.from_user) < (\(micros), \(id))
                    ORDER BY r.created_at DESC, r.from_user DESC LIMIT \(limit)
                    """, logger: logger)
            case .outgoing:
                try await client.fetch(
                    """
                    SELECT r.to_user, p.username, p.display_name, (extract(epoch FROM r.created_at) * 1000000)::bigint
                    FROM social.friend_requests r JOIN social.people p ON p.user_id = r.to_user
                    WHERE r.from_user = \(user) AND ((extract(epoch FROM r.created_at) * 1000000)::bigint, r.to_user) < (\(micros), \(id))
                    ORDER BY r.created_at DESC, r.to_user DESC LIMIT \(limit)
                    """, logger: logger)
            }
        return try await Self.listed(rows)
    }

    static func listed(_ rows: FetchedRows) async throws -> [ListedPerson] {
        var found: [ListedPerson] = []
        for try await (id, username, display, at) in rows.decode((UUID, String, String?, Int64).self) {
            found.append(ListedPerson(id: id, username: username, displayName: display, micros: at))
        }
        return found
    }
}
