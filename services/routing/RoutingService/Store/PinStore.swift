import Contract
import Foundation
import Logging
import PostgresNIO
import RoutingContract
import Store

/// The `routing.pins` table: locations users saved; every query is scoped to the owner.
public struct PinStore: Sendable {
    let client: PostgresClient
    let logger: Logger
    /// Most pins one user keeps.
    public static let maximumPerUser = 500

    /// A store on `client`.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The owner's pins, newest first (ties by id, descending): at most `limit`, after the pin
    /// created at `before` with id `beforeId` (a keyset page, so a pin saved or deleted between
    /// pages never makes one repeat).
    public func pins(
        of owner: UUID, before: (micros: Int64, id: UUID)? = nil, limit: Int = Int(Int32.max)
    ) async throws -> [Routing.Pin] {
        let rows = try await client.fetch(
            """
            SELECT id, lat, lon, level, description, created_at FROM routing.pins
            WHERE user_id = \(owner)
              AND (\(before?.micros)::bigint IS NULL
                   OR (created_at, id) < ('epoch'::timestamptz + \(before?.micros)::bigint * interval '1 microsecond',
                                         \(before?.id)::uuid))
            ORDER BY created_at DESC, id DESC LIMIT \(limit)
            """, logger: logger)
        var pins: [Routing.Pin] = []
        for try await (id, lat, lon, level, description, createdAt) in rows.decode(
            (UUID, Double, Double, Int, String, Date).self)
        {
            pins.append(
                Routing.Pin(
                    id: id.uuidString.lowercased(), lat: lat, lon: lon, level: level, description: description,
                    createdAt: createdAt))
        }
        return pins
    }

    /// Saves a pin, unless the owner already has ``maximumPerUser`` (then nil).
    public func save(_ draft: Routing.PinDraft, owner: UUID, id: UUID, now: Date) async throws -> Routing.Pin? {
        let level = draft.level ?? 0
        let rows = try await client.fetch(
            """
            INSERT INTO routing.pins (id, user_id, lat, lon, level, description, created_at)
            SELECT \(id), \(owner), \(draft.lat), \(draft.lon), \(level), \(draft.description), \(now)
            WHERE (SELECT count(*) FROM routing.pins WHERE user_id = \(owner)) < \(Self.maximumPerUser)
            RETURNING id
            """, logger: logger)
        for try await _ in rows {
            return Routing.Pin(
                id: id.uuidString.lowercased(), lat: draft.lat, lon: draft.lon, level: level,
                description: draft.description, createdAt: now)
        }
        return nil
    }

    /// Deletes one of the owner's pins; false when the owner has no such pin.
    public func delete(id: UUID, owner: UUID) async throws -> Bool {
        let rows = try await client.fetch(
            "DELETE FROM routing.pins WHERE id = \(id) AND user_id = \(owner) RETURNING id", logger: logger)
        for try await _ in rows { return true }
        return false
    }

    /// Forgets everything of `owner` that routing keeps: pins, activity, visits (after
    /// `auth.account_deleted`). Vouchers stay: a code already handed out keeps its worth.
    public func forget(_ owner: UUID, in tx: Transaction) async throws {
        let connection = tx.connection
        let logger = tx.logger
        try await connection.fetch("DELETE FROM routing.pins WHERE user_id = \(owner)", logger: logger)
        try await connection.fetch("DELETE FROM routing.activity WHERE user_id = \(owner)", logger: logger)
        try await connection.fetch("DELETE FROM routing.venue_visits WHERE user_id = \(owner)", logger: logger)
        try await connection.fetch("DELETE FROM routing.activity_reports WHERE user_id = \(owner)", logger: logger)
    }
}
