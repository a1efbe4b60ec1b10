import AuthContract
import Contract
import Foundation
import PostgresNIO

extension AccountStore {
    /// A page of accounts for an admin, oldest first (keyset pages on `(created_at, id)`).
    public func users(_ query: UserListQuery) async throws -> Page<Auth.UserSummary> {
        let pattern = query.likePattern
        let role = query.role?.rawValue
        let rows = try await client.fetch(
            """
            SELECT id, username, display_name, roles, created_at, (extract(epoch FROM created_at) * 1000000)::bigint
            FROM auth.users
            WHERE (\(pattern)::text IS NULL OR username LIKE \(pattern)::text OR lower(email) LIKE \(pattern)::text)
              AND (\(role)::text IS NULL OR roles @> ARRAY[\(role)::text])
              AND (\(query.after?.micros)::bigint IS NULL
                   OR (created_at, id) > ('epoch'::timestamptz + \(query.after?.micros)::bigint * interval '1 microsecond',
                                         \(query.after?.id)::uuid))
            ORDER BY created_at, id LIMIT \(query.limit + 1)
            """, logger: logger)
        var fetched: [(user: Auth.UserSummary, micros: Int64)] = []
        for try await (id, name, display, roles, created, micros) in rows.decode(
            (UUID, String, String?, [String], Date, Int64).self)
        {
            let user = Auth.UserSummary(
                userId: id.uuidString.lowercased(), username: name, displayName: display, roles: roles,
                createdAt: created)
            fetched.append((user, micros))
        }
        guard fetched.count > query.limit else { return Page(items: fetched.map(\.user)) }
        let last = fetched[query.limit - 1]
        return Page(
            items: fetched.prefix(query.limit).map(\.user),
            nextCursor: KeysetCursor.text(micros: last.micros, id: last.user.userId))
    }
}
