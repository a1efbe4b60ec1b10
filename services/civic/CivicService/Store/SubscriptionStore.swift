import CivicContract
import Contract
import Foundation
import Logging
import PostgresNIO
import Store

/// New-bill subscriptions per device push token (`civic.subscriptions`). The token is stored to
/// push to and never read back to a caller.
public struct SubscriptionStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// What a device asks for, checked.
    public struct Device: Sendable {
        public var token: String
        public var platform: String
        public var app: String
        public var apnsEnvironment: String
        public init(token: String, platform: String, app: String, apnsEnvironment: String) {
            self.token = token
            self.platform = platform
            self.app = app
            self.apnsEnvironment = apnsEnvironment
        }
    }

    /// Creates the device's subscription, or replaces the one it had (same app and token) with a
    /// new filter and secret hash; whether it is new.
    public func upsert(
        _ device: Device, filter: Civic.SubscriptionFilter, secretHash: String, now: Date
    ) async throws -> (subscription: Civic.Subscription, created: Bool) {
        let rows = try await client.fetch(
            """
            INSERT INTO civic.subscriptions AS s (id, secret_hash, device_token, platform, app, apns_environment,
                jurisdictions, subjects, created_at, updated_at)
            VALUES (\(UUID()), \(secretHash), \(device.token), \(device.platform), \(device.app),
                \(device.apnsEnvironment), \(filter.jurisdictions), \(filter.subjects), \(now), \(now))
            ON CONFLICT (app, device_token) DO UPDATE SET secret_hash = EXCLUDED.secret_hash,
                platform = EXCLUDED.platform, apns_environment = EXCLUDED.apns_environment,
                jurisdictions = EXCLUDED.jurisdictions, subjects = EXCLUDED.subjects, updated_at = EXCLUDED.updated_at
            RETURNING s.id, s.platform, s.app, s.jurisdictions, s.subjects, s.created_at, s.updated_at, (s.xmax = 0)
            """, logger: logger)
        for try await row in rows.decode((UUID, String, String, [String], [String], Date, Date, Bool).self) {
            return (Self.subscription(row.0, row.1, row.2, row.3, row.4, row.5, row.6), row.7)
        }
        throw ServiceError(.internal, "the subscription was not stored")
    }

    /// Changes the filter (and the token, when given) of subscription `id` if `secretHash` is
    /// its secret's; nil when there is no such subscription or the secret is wrong. A renewed
    /// token that another subscription of the same app held takes it over (the token is the device).
    public func update(
        _ id: UUID, secretHash: String, filter: Civic.SubscriptionFilter, token: String?, apnsEnvironment: String?,
        now: Date
    ) async throws -> Civic.Subscription? {
        try await client.transaction(logger: logger) { connection in
            if let token {
                try await connection.fetch(
                    """
                    DELETE FROM civic.subscriptions other USING civic.subscriptions me
                    WHERE me.id = \(id) AND me.secret_hash = \(secretHash) AND other.app = me.app
                      AND other.device_token = \(token) AND other.id <> me.id
                    """, logger: logger)
            }
            let rows = try await connection.fetch(
                """
                UPDATE civic.subscriptions SET jurisdictions = \(filter.jurisdictions), subjects = \(filter.subjects),
                    device_token = coalesce(\(token), device_token),
                    apns_environment = coalesce(\(apnsEnvironment), apns_environment), updated_at = \(now)
                WHERE id = \(id) AND secret_hash = \(secretHash)
                RETURNING id, platform, app, jurisdictions, subjects, created_at, updated_at
                """, logger: logger)
            for try await row in rows.decode((UUID, String, String, [String], [String], Date, Date).self) {
                return Self.subscription(row.0, row.1, row.2, row.3, row.4, row.5, row.6)
            }
            return nil
        }
    }

    /// Deletes subscription `id` if `secretHash` is its secret's (its owed pushes go with it).
    public func delete(_ id: UUID, secretHash: String) async throws -> Bool {
        let rows = try await client.fetch(
            "DELETE FROM civic.subscriptions WHERE id = \(id) AND secret_hash = \(secretHash) RETURNING id",
            logger: logger)
        for try await _ in rows.decode(UUID.self) { return true }
        return false
    }

    /// Deletes subscription `id` if its token is still the one whose SHA-256 (hex) the push
    /// provider refused (a device that sent a new token since keeps its subscription); whether
    /// one was deleted. Runs on the consumer's transaction.
    public func forgetRefused(
        _ id: UUID, tokenSHA256: String, in tx: Transaction
    ) async throws -> Bool {
        let rows = try await tx.connection.fetch(
            """
            DELETE FROM civic.subscriptions
            WHERE id = \(id) AND encode(sha256(convert_to(device_token, 'UTF8')), 'hex') = \(tokenSHA256.lowercased())
            RETURNING id
            """,
            logger: logger)
        for try await _ in rows.decode(UUID.self) { return true }
        return false
    }

    static func subscription(
        _ id: UUID, _ platform: String, _ app: String, _ jurisdictions: [String], _ subjects: [String],
        _ created: Date, _ updated: Date
    ) -> Civic.Subscription {
        .init(
            id: id.uuidString.lowercased(), platform: platform, app: app, jurisdictions: jurisdictions,
            subjects: subjects, createdAt: FeedDate.text(created), updatedAt: FeedDate.text(updated))
    }
}
