import Contract
import Crypto
import Foundation
import Logging
import PostgresNIO
import Store

/// Signing keys and refresh tokens in schema `auth`.
public struct SessionStore: Sendable {
    /// How long a refresh token lives.
    public var refreshLifetime: TimeInterval = 30 * 24 * 3600
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The active signing key, created on first use; replicas starting together agree on one.
    public func signingKey(now: Date) async throws -> (kid: String, privateKey: Data) {
        try await client.transaction(logger: logger) { connection in
            try await connection.fetch("SELECT pg_advisory_xact_lock(hashtext('auth.signing_keys'))", logger: logger)
            let rows = try await connection.fetch(
                "SELECT kid, private_key FROM auth.signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1",
                logger: logger)
            for try await (kid, key) in rows.decode((String, Data).self) { return (kid, key) }
            let key = Curve25519.Signing.PrivateKey()
            let kid = "ed25519-" + String(UUID().uuidString.lowercased().prefix(8))
            try await connection.fetch(
                "INSERT INTO auth.signing_keys (kid, private_key, created_at) VALUES (\(kid), \(key.rawRepresentation), \(now))",
                logger: logger)
            return (kid, key.rawRepresentation)
        }
    }

    /// A new refresh token for `userId` (a new family) inside the caller's transaction.
    public func issue(userId: UUID, now: Date, in tx: Transaction) async throws -> String {
        try await issue(userId: userId, now: now, on: tx.connection)
    }

    /// A new refresh token for `userId` in `family` (a new family for a new login).
    func issue(userId: UUID, family: UUID = UUID(), now: Date, on connection: PostgresConnection? = nil)
        async throws -> String
    {
        let token = Self.newToken()
        let query: PostgresQuery = try """
        INSERT INTO auth.refresh_tokens (id, user_id, family_id, token_hash, issued_at, expires_at)
        VALUES (\(UUID()), \(userId), \(family), \(Self.digest(token)), \(now), \(now.addingTimeInterval(refreshLifetime)))
        """
        if let connection {
            try await connection.fetch(query, logger: logger)
        } else {
            try await client.fetch(query, logger: logger)
        }
        return token
    }

    /// What a successful login does in one round trip: clears the login counters of `username`
    /// (the lockout starts over after a success) and returns a refresh token of a new family.
    public func openAfterLogin(userId: UUID, username: Username, now: Date) async throws -> String {
        let token = Self.newToken()
        try await client.fetch(
            OpenAfterLoginStatement(
                id: UUID(), userId: userId, family: UUID(), tokenHash: Self.digest(token), now: now,
                expires: now.addingTimeInterval(refreshLifetime), username: username.value),
            logger: logger)
        return token
    }

    /// A successful login's second round trip, prepared once per connection: clears the login
    /// counters (``AccountStore``'s statement, its one owner) and stores the new refresh token.
    struct OpenAfterLoginStatement: PostgresPreparedStatement {
        static let sql = """
            WITH cleared AS (\(AccountStore.clearLoginStateSQL(username: "$7", now: "$5")))
            INSERT INTO auth.refresh_tokens (id, user_id, family_id, token_hash, issued_at, expires_at)
            VALUES ($1, $2, $3, $4, $5, $6)
            """
        static let bindingDataTypes: [PostgresDataType] = [
            .uuid, .uuid, .uuid, .bytea, .timestamptz, .timestamptz, .text,
        ]
        typealias Row = Void

        let id: UUID
        let userId: UUID
        let family: UUID
        let tokenHash: Data
        let now: Date
        let expires: Date
        let username: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 7)
            bindings.append(id)
            bindings.append(userId)
            bindings.append(family)
            try bindings.append(tokenHash)
            bindings.append(now)
            bindings.append(expires)
            bindings.append(username)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws {}
    }

    /// Spends `token` and returns its user and a new token of the same family. A token used a
    /// second time revokes the whole family (someone else has a copy): `unauthenticated` then.
    public func rotate(_ token: String, now: Date) async throws -> (userId: UUID, token: String) {
        let outcome: Result<(UUID, String), ServiceError> = try await client.transaction(logger: logger) {
            connection in
            // PostgreSQL judges the expiry, at its own microsecond: `now` is bound (and truncated)
            // the way the expiry was written, so the token ends exactly at its stored end. A time
            // read back as a Double need not equal the instant that was written, by a fraction of
            // a microsecond either way (what broke LockoutPolicy), so it is not compared in Swift.
            let rows = try await connection.fetch(
                """
                SELECT user_id, family_id, expires_at <= \(now), used_at, revoked_at FROM auth.refresh_tokens
                WHERE token_hash = \(Self.digest(token)) FOR UPDATE
                """, logger: logger)
            var found: (UUID, UUID, Bool, Date?, Date?)?
            for try await row in rows.decode((UUID, UUID, Bool, Date?, Date?).self) { found = row }
            guard let (userId, family, expired, usedAt, revokedAt) = found else {
                return .failure(ServiceError(.unauthenticated, "unknown refresh token"))
            }
            if revokedAt != nil { return .failure(ServiceError(.unauthenticated, "this session was signed out")) }
            if usedAt != nil {
                try await connection.fetch(
                    "UPDATE auth.refresh_tokens SET revoked_at = \(now) WHERE family_id = \(family) AND revoked_at IS NULL",
                    logger: logger)
                return .failure(
                    ServiceError(.unauthenticated, "refresh token reused; the session is revoked, sign in again"))
            }
            if expired { return .failure(ServiceError(.unauthenticated, "the refresh token has expired")) }
            try await connection.fetch(
                "UPDATE auth.refresh_tokens SET used_at = \(now) WHERE token_hash = \(Self.digest(token))",
                logger: logger)
            let next = try await issue(userId: userId, family: family, now: now, on: connection)
            return .success((userId, next))
        }
        return try outcome.get()
    }

    /// Revokes the family `token` belongs to (logout). Unknown tokens are ignored: logging out twice is fine.
    public func revokeFamily(of token: String, now: Date) async throws {
        try await client.fetch(
            """
            UPDATE auth.refresh_tokens SET revoked_at = \(now)
            WHERE revoked_at IS NULL AND family_id = (SELECT family_id FROM auth.refresh_tokens WHERE token_hash = \(Self.digest(token)))
            """, logger: logger)
    }

    /// Revokes every session of `userId` (a new password, a reset), inside the caller's transaction.
    public func revokeAll(userId: UUID, now: Date, in tx: Transaction) async throws {
        try await tx.connection.fetch(
            "UPDATE auth.refresh_tokens SET revoked_at = \(now) WHERE user_id = \(userId) AND revoked_at IS NULL",
            logger: tx.logger)
    }

    /// 256 random bits, base64url.
    static func newToken() -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func digest(_ token: String) -> Data { Data(SHA256.hash(data: Data(token.utf8))) }
}
