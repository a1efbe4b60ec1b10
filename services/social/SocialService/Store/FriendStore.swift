import Contract
import Foundation
import Logging
import PostgresNIO
import SocialContract
import Store

/// Friend requests, friendships and blocks. Every change between two users runs in a
/// transaction holding that pair's transaction-scoped advisory lock (``pairState(_:_:in:)``), so
/// concurrent requests (40 identical ones, or two users asking each other at the same moment) are
/// decided one after another.
public struct FriendStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Takes the lock of the pair `a`, `b` (either order) for the rest of `tx`, and reads their
    /// state as `a` sees it.
    func pairState(_ a: UUID, _ b: UUID, in tx: Transaction) async throws -> PairState {
        let (low, high) = a.uuidString < b.uuidString ? (a, b) : (b, a)
        let key = "social-pair:\(low.uuidString):\(high.uuidString)"
        let connection = tx.connection
        try await connection.fetch("SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))", logger: logger)
        let rows = try await connection.fetch(
            """
            SELECT
                EXISTS (SELECT 1 FROM social.blocks WHERE (blocker = \(a) AND blocked = \(b))
                    OR (blocker = \(b) AND blocked = \(a))),
                EXISTS (SELECT 1 FROM social.friendships WHERE user_id = \(a) AND friend_id = \(b)),
                EXISTS (SELECT 1 FROM social.friend_requests WHERE from_user = \(a) AND to_user = \(b)),
                EXISTS (SELECT 1 FROM social.friend_requests WHERE from_user = \(b) AND to_user = \(a))
            """, logger: logger)
        var state = PairState()
        for try await (blocked, friends, requested, incoming) in rows.decode((Bool, Bool, Bool, Bool).self) {
            state = PairState(blocked: blocked, friends: friends, requested: requested, incoming: incoming)
        }
        return state
    }

    /// Makes `a` and `b` friends (both rows) and drops any request between them.
    func befriend(_ a: UUID, _ b: UUID, now: Date, in tx: Transaction) async throws {
        try await tx.connection.fetch(
            """
            WITH dropped AS (
                DELETE FROM social.friend_requests
                WHERE (from_user = \(a) AND to_user = \(b)) OR (from_user = \(b) AND to_user = \(a))
            )
            INSERT INTO social.friendships (user_id, friend_id, since)
            VALUES (\(a), \(b), \(now)), (\(b), \(a), \(now))
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    /// Stores a request from `from` to `to`.
    func request(from: UUID, to: UUID, now: Date, in tx: Transaction) async throws {
        try await tx.connection.fetch(
            """
            INSERT INTO social.friend_requests (from_user, to_user, created_at) VALUES (\(from), \(to), \(now))
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    /// Drops the request from `from` to `to`; whether there was one.
    func dropRequest(from: UUID, to: UUID, in tx: Transaction) async throws -> Bool {
        let rows = try await tx.connection.fetch(
            "DELETE FROM social.friend_requests WHERE from_user = \(from) AND to_user = \(to) RETURNING 1",
            logger: logger)
        return try await rows.collect().count == 1
    }

    /// Ends the friendship of `a` and `b`; whether there was one.
    func unfriend(_ a: UUID, _ b: UUID, in tx: Transaction) async throws -> Bool {
        let rows = try await tx.connection.fetch(
            """
            DELETE FROM social.friendships
            WHERE (user_id = \(a) AND friend_id = \(b)) OR (user_id = \(b) AND friend_id = \(a)) RETURNING 1
            """, logger: logger)
        return try await rows.collect().count > 0
    }

    /// `blocker` blocks `blocked`: friendship and requests either way end.
    func block(_ blocker: UUID, _ blocked: UUID, now: Date, in tx: Transaction) async throws {
        _ = try await unfriend(blocker, blocked, in: tx)
        _ = try await dropRequest(from: blocker, to: blocked, in: tx)
        _ = try await dropRequest(from: blocked, to: blocker, in: tx)
        try await tx.connection.fetch(
            """
            INSERT INTO social.blocks (blocker, blocked, created_at) VALUES (\(blocker), \(blocked), \(now))
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    /// Lifts `blocker`'s block of `blocked`; whether there was one.
    func unblock(_ blocker: UUID, _ blocked: UUID, in tx: Transaction) async throws -> Bool {
        let rows = try await tx.connection.fetch(
            "DELETE FROM social.blocks WHERE blocker = \(blocker) AND blocked = \(blocked) RETURNING 1",
            logger: logger)
        return try await rows.collect().count == 1
    }

    /// Whether `a` and `b` are friends (and neither blocks the other).
    public func areFriends(_ a: UUID, _ b: UUID) async throws -> Bool {
        let rows = try await client.fetch(
            "SELECT 1 FROM social.friendships WHERE user_id = \(a) AND friend_id = \(b)", logger: logger)
        return try await rows.collect().count == 1
    }
}
