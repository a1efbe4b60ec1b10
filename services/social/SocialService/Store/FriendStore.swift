import Contract
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import SocialContract
import Store

/// Friend requests, friendships and blocks. Every change between two users runs under that
/// pair's transaction-scoped advisory lock, so concurrent requests (40 identical ones, or two
/// users asking each other at the same moment) are decided one after another; each change
/// writes its event in the same transaction.
public struct FriendStore: Sendable {
    let client: PostgresClient
    let events: EventPublisher
    let logger: Logger

    public init(client: PostgresClient, events: EventPublisher, logger: Logger) {
        self.client = client
        self.events = events
        self.logger = logger
    }

    /// Runs `body` in a transaction holding the lock of the pair `a`, `b` (either order), with
    /// their state as `a` sees it; announces the events `body` returns after commit.
    func changing<T: Sendable>(
        _ a: UUID, _ b: UUID,
        _ body: @Sendable (PostgresConnection, PairState) async throws -> (T, [StoredEvent])
    ) async throws -> T {
        let (low, high) = a.uuidString < b.uuidString ? (a, b) : (b, a)
        let key = "social-pair:\(low.uuidString):\(high.uuidString)"
        let (result, stored) = try await client.transaction(logger: logger) { connection in
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
            return try await body(connection, state)
        }
        for event in stored { events.announce(event) }
        return result
    }

    /// Makes `a` and `b` friends (both rows) and drops any request between them.
    func befriend(_ a: UUID, _ b: UUID, now: Date, on connection: PostgresConnection) async throws {
        try await connection.fetch(
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
    func request(from: UUID, to: UUID, now: Date, on connection: PostgresConnection) async throws {
        try await connection.fetch(
            """
            INSERT INTO social.friend_requests (from_user, to_user, created_at) VALUES (\(from), \(to), \(now))
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    /// Drops the request from `from` to `to`; whether there was one.
    func dropRequest(from: UUID, to: UUID, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.fetch(
            "DELETE FROM social.friend_requests WHERE from_user = \(from) AND to_user = \(to) RETURNING 1",
            logger: logger)
        return try await rows.collect().count == 1
    }

    /// Ends the friendship of `a` and `b`; whether there was one.
    func unfriend(_ a: UUID, _ b: UUID, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.fetch(
            """
            DELETE FROM social.friendships
            WHERE (user_id = \(a) AND friend_id = \(b)) OR (user_id = \(b) AND friend_id = \(a)) RETURNING 1
            """, logger: logger)
        return try await rows.collect().count > 0
    }

    /// `blocker` blocks `blocked`: friendship and requests either way end.
    func block(_ blocker: UUID, _ blocked: UUID, now: Date, on connection: PostgresConnection) async throws {
        _ = try await unfriend(blocker, blocked, on: connection)
        _ = try await dropRequest(from: blocker, to: blocked, on: connection)
        _ = try await dropRequest(from: blocked, to: blocker, on: connection)
        try await connection.fetch(
            """
            INSERT INTO social.blocks (blocker, blocked, created_at) VALUES (\(blocker), \(blocked), \(now))
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    /// Lifts `blocker`'s block of `blocked`; whether there was one.
    func unblock(_ blocker: UUID, _ blocked: UUID, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.fetch(
            "DELETE FROM social.blocks WHERE blocker = \(blocker) AND blocked = \(blocked) RETURNING 1",
            logger: logger)
        return try await rows.collect().count == 1
    }

    /// Appends one event on `connection`.
    func append<Payload: Encodable & Sendable>(
        _ topic: String, _ payload: Payload, requestId: String?, on connection: PostgresConnection
    ) async throws -> StoredEvent {
        try await events.append(topic: topic, payload: payload, requestId: requestId, on: connection, logger: logger)
    }

    /// Whether `a` and `b` are friends (and neither blocks the other).
    public func areFriends(_ a: UUID, _ b: UUID) async throws -> Bool {
        let rows = try await client.fetch(
            "SELECT 1 FROM social.friendships WHERE user_id = \(a) AND friend_id = \(b)", logger: logger)
        return try await rows.collect().count == 1
    }
}
