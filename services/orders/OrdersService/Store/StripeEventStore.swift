import Foundation
import Logging
import PostgresNIO
import Store

/// Stripe webhook events handled (`orders.stripe_events`), so that a repeated delivery changes
/// nothing.
public struct StripeEventStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// A store on `client`.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Whether event `id` was handled before.
    func seen(_ id: String) async throws -> Bool {
        let rows = try await client.fetch("SELECT 1 FROM orders.stripe_events WHERE id = \(id)", logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    /// Remembers event `id` as handled.
    func remember(_ id: String, type: String, now: Date) async throws {
        try await client.fetch(
            """
            INSERT INTO orders.stripe_events (id, type, received_at) VALUES (\(id), \(type), \(now))
            ON CONFLICT (id) DO NOTHING
            """, logger: logger)
    }
}
