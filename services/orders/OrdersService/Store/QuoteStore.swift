import Contract
import Foundation
import Logging
import PostgresNIO
import Store

/// A stored quote, as an order that names it reads it.
struct StoredQuote: Sendable {
    let rateSetId: Int64
    let currency: String
    let expiresAt: Date
    /// Still valid at the time asked (judged by PostgreSQL at the microsecond both times were
    /// stored with: an expiry read back as a `Date` can come back a fraction of a microsecond early).
    let valid: Bool
    /// Who asked for it; nil when anonymous.
    let owner: UUID?
}

/// Quotes (`orders.quotes`): a price breakdown and its rate set, valid until they expire.
public struct QuoteStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// A store on `client`.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Keeps a quote.
    func insert(
        _ id: UUID, userId: UUID?, rateSetId: Int64, currency: String, breakdown: PriceBreakdown, now: Date,
        expires: Date
    ) async throws {
        let json = String(decoding: try Wire.makeEncoder().encode(breakdown), as: UTF8.self)
        try await client.fetch(
            """
            INSERT INTO orders.quotes (id, user_id, rate_set_id, currency, breakdown, created_at, expires_at)
            VALUES (\(id), \(userId), \(rateSetId), \(currency), \(json)::jsonb, \(now), \(expires))
            """, logger: logger)
    }

    /// The quote `id`, with whether it is still valid at `now`.
    func find(_ id: UUID, now: Date) async throws -> StoredQuote? {
        let rows = try await client.fetch(
            """
            SELECT rate_set_id, currency, expires_at, expires_at > \(now), user_id
            FROM orders.quotes WHERE id = \(id)
            """, logger: logger)
        for try await (setId, quoted, expires, valid, owner) in rows.decode((Int64, String, Date, Bool, UUID?).self) {
            return StoredQuote(rateSetId: setId, currency: quoted, expiresAt: expires, valid: valid, owner: owner)
        }
        return nil
    }

    /// Forgets quotes expired a day before `now` that no order names.
    func deleteExpired(now: Date) async throws {
        try await client.fetch(
            """
            DELETE FROM orders.quotes q WHERE expires_at <= \(now) - interval '1 day'
            AND NOT EXISTS (SELECT 1 FROM orders.orders o WHERE o.quote_id = q.id)
            """, logger: logger)
    }
}
