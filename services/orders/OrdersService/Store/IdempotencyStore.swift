import Contract
import Foundation
import Logging
import OrdersContract
import PostgresNIO
import Store

/// Whose key, and the hash of the request body it stands for.
struct KeyClaim: Sendable {
    let userId: UUID
    let key: String
    let hash: String
}

/// What an earlier request with a key left.
enum KeyRecord: Sendable {
    /// Its payment still runs.
    case pending(hash: String)
    /// Its answer.
    case answered(hash: String, Result<Orders.PlaceOrder.Reply, ServiceError>)

    /// The hash of the request the key stands for.
    var hash: String {
        switch self {
        case .pending(let hash), .answered(let hash, _): hash
        }
    }
}

/// Order Idempotency-Keys (`orders.idempotency_keys`): claimed with the order, the answer kept
/// under them until they expire.
public struct IdempotencyStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// A store on `client`.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Claims the key for this transaction (or takes over one expired at `now`, to last until
    /// `expires`) and reads the user's card `cardId` (not deleted), in one statement: nil when
    /// another request holds the key, else the card if there is one. A concurrent claim of the
    /// same key waits here until the first commits.
    func claim(_ claim: KeyClaim, card cardId: UUID?, now: Date, expires: Date, in tx: Transaction) async throws
        -> PaymentMethodStore.Saved??
    {
        let rows = try await tx.connection.fetch(
            ClaimStatement(claim: claim, now: now, expires: expires, cardId: cardId), logger: tx.logger)
        for (won, id, provider, token, brand, last4, month, year, customer) in rows {
            guard won else { return nil }
            guard let id, let provider, let token, let brand, let last4, let month, let year else { return .some(nil) }
            return PaymentMethodStore.Saved(
                id: id,
                method: Orders.PaymentMethod(
                    id: id.uuidString.lowercased(), brand: brand, last4: last4, expMonth: month, expYear: year),
                provider: provider, token: token, customer: customer)
        }
        throw ServiceError(.internal, "claiming an idempotency key returned no row")
    }

    /// What is kept under `userId`'s `key`, unless it expired by `now`.
    func find(userId: UUID, key: String, now: Date) async throws -> KeyRecord? {
        let rows = try await client.fetch(
            """
            SELECT request_hash, status, response::text FROM orders.idempotency_keys
            WHERE user_id = \(userId) AND key = \(key) AND expires_at > \(now)
            """, logger: logger)
        for try await (storedHash, status, response) in rows.decode((String, String, String).self) {
            if status == "pending" { return .pending(hash: storedHash) }
            let decoder = Wire.makeDecoder()
            if status == "ok" {
                return .answered(
                    hash: storedHash,
                    .success(try decoder.decode(Orders.PlaceOrder.Reply.self, from: Data(response.utf8))))
            }
            return .answered(
                hash: storedHash, .failure(try decoder.decode(ServiceError.self, from: Data(response.utf8))))
        }
        return nil
    }

    /// Keeps `answer` under the key of order `orderId`.
    func keep(_ answer: Result<Orders.PlaceOrder.Reply, ServiceError>, order orderId: UUID, in tx: Transaction)
        async throws
    {
        let encoder = Wire.makeEncoder()
        let (status, response): (String, Data) =
            switch answer {
            case .success(let reply): ("ok", try encoder.encode(reply))
            case .failure(let error): (error.code.rawValue, try encoder.encode(error))
            }
        let json = String(decoding: response, as: UTF8.self)
        try await tx.connection.fetch(
            """
            UPDATE orders.idempotency_keys SET status = \(status), response = \(json)::jsonb
            WHERE order_id = \(orderId)
            """, logger: tx.logger)
    }

    /// Forgets the keys expired by `now`.
    func deleteExpired(now: Date) async throws {
        try await client.fetch("DELETE FROM orders.idempotency_keys WHERE expires_at <= \(now)", logger: logger)
    }

    /// ``claim(_:card:now:expires:in:)``'s statement, prepared once per connection (every order runs it).
    struct ClaimStatement: PostgresPreparedStatement {
        static let sql = """
            WITH claimed AS (
                INSERT INTO orders.idempotency_keys
                    (user_id, key, request_hash, status, response, created_at, expires_at)
                VALUES ($1, $2, $3, 'pending', '{}', $4, $5)
                ON CONFLICT (user_id, key) DO UPDATE
                    SET request_hash = excluded.request_hash, status = 'pending', response = '{}', order_id = NULL,
                        created_at = excluded.created_at, expires_at = excluded.expires_at
                    WHERE orders.idempotency_keys.expires_at <= $4
                RETURNING 1
            )
            SELECT EXISTS (SELECT 1 FROM claimed),
                   pm.id, pm.provider, pm.token, pm.brand, pm.last4, pm.exp_month, pm.exp_year, pm.customer_id
            FROM (SELECT 1) one
            LEFT JOIN orders.payment_methods pm ON pm.id = $6 AND pm.user_id = $1 AND pm.deleted_at IS NULL
            """
        static let bindingDataTypes: [PostgresDataType] = [.uuid, .text, .text, .timestamptz, .timestamptz, .uuid]
        typealias Row = (Bool, UUID?, String?, String?, String?, String?, Int?, Int?, String?)

        let claim: KeyClaim
        let now: Date
        let expires: Date
        let cardId: UUID?

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 6)
            bindings.append(claim.userId)
            bindings.append(claim.key)
            bindings.append(claim.hash)
            bindings.append(now)
            bindings.append(expires)
            bindings.append(cardId)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }
}
