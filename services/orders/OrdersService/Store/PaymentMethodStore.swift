import Contract
import Foundation
import Logging
import OrdersContract
import PostgresNIO
import Store

/// Saved cards in `orders.payment_methods`: provider token, brand, last four digits, expiry.
public struct PaymentMethodStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// A store on `client`.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// A saved card with its token, as payments need it.
    public struct Saved: Sendable, Hashable {
        public let id: UUID
        public let method: Orders.PaymentMethod
        public let provider: String
        public let token: String
        /// The provider's customer the card is attached to (Stripe); nil for the sandbox, and
        /// for a Stripe card saved before cards were attached.
        public var customer: String? = nil
    }

    /// Saves a tokenized card for `userId`, attached to the provider's `customer` if any.
    public func add(_ card: TokenizedCard, provider: String, userId: UUID, customer: String? = nil, now: Date)
        async throws -> Orders.PaymentMethod
    {
        let id = UUID()
        try await client.fetch(
            """
            INSERT INTO orders.payment_methods
                (id, user_id, provider, token, brand, last4, exp_month, exp_year, created_at, customer_id)
            VALUES (\(id), \(userId), \(provider), \(card.token), \(card.brand), \(card.last4), \(card.expMonth),
                    \(card.expYear), \(now), \(customer))
            """, logger: logger)
        return Orders.PaymentMethod(
            id: id.uuidString.lowercased(), brand: card.brand, last4: card.last4, expMonth: card.expMonth,
            expYear: card.expYear)
    }

    /// The provider's customer kept for `userId`, if any.
    public func customer(userId: UUID, provider: String) async throws -> String? {
        let rows = try await client.fetch(
            """
            SELECT customer_id FROM orders.payment_customers WHERE user_id = \(userId) AND provider = \(provider)
            """, logger: logger)
        for try await customer in rows.decode(String.self) { return customer }
        return nil
    }

    /// Keeps `customer` as `userId`'s, unless one is kept already; returns the one kept (so two
    /// racing first saves end with one customer).
    public func keepCustomer(_ customer: String, userId: UUID, provider: String, now: Date) async throws -> String {
        let rows = try await client.fetch(
            """
            WITH kept AS (
                INSERT INTO orders.payment_customers (user_id, provider, customer_id, created_at)
                VALUES (\(userId), \(provider), \(customer), \(now))
                ON CONFLICT (user_id, provider) DO NOTHING
                RETURNING customer_id
            )
            SELECT customer_id FROM kept
            UNION ALL
            SELECT customer_id FROM orders.payment_customers WHERE user_id = \(userId) AND provider = \(provider)
            LIMIT 1
            """, logger: logger)
        for try await kept in rows.decode(String.self) { return kept }
        throw ServiceError(.internal, "keeping a payment customer returned no row")
    }

    /// Records that card `id` is now attached to `customer`, as `token` (a card saved before
    /// cards were attached, attached on its next use). A deleted card is left as it is.
    public func setCustomer(_ id: UUID, token: String, customer: String?) async throws {
        try await client.fetch(
            """
            UPDATE orders.payment_methods SET token = \(token), customer_id = \(customer)
            WHERE id = \(id) AND deleted_at IS NULL
            """, logger: logger)
    }

    /// The user's saved cards, oldest first: at most `limit`, after card `after` (a keyset page on
    /// `(created_at, id)`, so a card saved or deleted between pages never makes one repeat).
    public func list(userId: UUID, after: UUID? = nil, limit: Int = Int(Int32.max)) async throws
        -> [Orders.PaymentMethod]
    {
        try await saved(
            """
            SELECT id, provider, token, brand, last4, exp_month, exp_year FROM orders.payment_methods
            WHERE user_id = \(userId) AND deleted_at IS NULL
              AND (\(after)::uuid IS NULL
                   OR (created_at, id) > (SELECT created_at, id FROM orders.payment_methods WHERE id = \(after)::uuid))
            ORDER BY created_at, id LIMIT \(limit)
            """
        ).map(\.method)
    }

    /// The card `id` whether deleted or not (for order details).
    public func any(_ id: UUID) async throws -> Orders.PaymentMethod? {
        try await saved(
            """
            SELECT id, provider, token, brand, last4, exp_month, exp_year FROM orders.payment_methods
            WHERE id = \(id)
            """
        ).first?.method
    }

    /// Forgets a card: the token is dropped, the row stays for the orders paid with it.
    /// `not_found` when the user has no such card.
    public func delete(_ id: UUID, userId: UUID, now: Date) async throws {
        let rows = try await client.fetch(
            """
            UPDATE orders.payment_methods SET deleted_at = \(now), token = ''
            WHERE id = \(id) AND user_id = \(userId) AND deleted_at IS NULL RETURNING id
            """, logger: logger)
        for try await _ in rows.decode(UUID.self) { return }
        throw ServiceError.notFound("no such payment method")
    }

    private func saved(_ query: PostgresQuery) async throws -> [Saved] {
        try await Self.decode(try await client.fetch(query, logger: logger))
    }

    private static func decode(_ rows: FetchedRows) async throws -> [Saved] {
        var result: [Saved] = []
        for try await (id, provider, token, brand, last4, month, year) in rows.decode(
            (UUID, String, String, String, String, Int, Int).self)
        {
            result.append(
                Saved(
                    id: id,
                    method: Orders.PaymentMethod(
                        id: id.uuidString.lowercased(), brand: brand, last4: last4, expMonth: month, expYear: year),
                    provider: provider, token: token))
        }
        return result
    }
}
