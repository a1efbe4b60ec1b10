import AuthContract
import Contract
import Foundation
import Logging
import PostgresNIO
import Store

/// The `auth` schema: accounts and login counters.
public struct AccountStore: Sendable {
    /// An account as login needs it.
    public struct Account: Sendable, Equatable {
        public let id: UUID
        public let username: String
        public let passwordHash: String
        public let roles: [String]
    }

    let client: PostgresClient
    let logger: Logger

    /// A store on `client` (schema `auth`, migrated by the service at start).
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Creates an account; `already_exists` when the canonical username is taken.
    public func create(
        id: UUID, username: Username, passwordHash: String, email: String?, phone: String?, now: Date,
        roles: [String] = [Auth.Role.user.rawValue]
    ) async throws -> UUID {
        do {
            try await client.fetch(
                """
                INSERT INTO auth.users (id, username, email, phone, password_hash, roles, created_at, updated_at)
                VALUES (\(id), \(username.value), \(email), \(phone), \(passwordHash), \(roles), \(now), \(now))
                """, logger: logger)
            return id
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw ServiceError(.alreadyExists, "the username '\(username)' is taken", details: ["field": "username"])
        }
    }

    /// ``create(id:username:passwordHash:email:phone:now:roles:)`` inside the caller's transaction.
    func create(
        id: UUID, username: Username, passwordHash: String, email: String?, phone: String?, now: Date,
        in tx: Transaction
    ) async throws {
        do {
            try await tx.connection.fetch(
                """
                INSERT INTO auth.users (id, username, email, phone, password_hash, roles, created_at, updated_at)
                VALUES (\(id), \(username.value), \(email), \(phone), \(passwordHash), \([Auth.Role.user.rawValue]),
                    \(now), \(now))
                """, logger: tx.logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw ServiceError(.alreadyExists, "the username '\(username)' is taken", details: ["field": "username"])
        }
    }

    /// The account with that canonical username, if any.
    public func account(_ username: Username) async throws -> Account? {
        try await firstAccount(
            "SELECT id, username, password_hash, roles FROM auth.users WHERE username = \(username.value)")
    }

    /// The account with that id, if any.
    public func account(id: UUID) async throws -> Account? {
        try await firstAccount("SELECT id, username, password_hash, roles FROM auth.users WHERE id = \(id)")
    }

    private func firstAccount(_ query: PostgresQuery) async throws -> Account? {
        let rows = try await client.fetch(query, logger: logger)
        for try await (id, name, hash, roles) in rows.decode((UUID, String, String, [String]).self) {
            return Account(id: id, username: name, passwordHash: hash, roles: roles)
        }
        return nil
    }

    /// The profile of account `id`, if it exists.
    public func profile(id: UUID) async throws -> Auth.Profile? {
        try await client.withConnection { try await profile(id: id, on: $0) }
    }

    /// ``profile(id:)`` inside the caller's transaction (it sees the transaction's changes).
    func profile(id: UUID, in tx: Transaction) async throws -> Auth.Profile? {
        try await profile(id: id, on: tx.connection)
    }

    private func profile(id: UUID, on connection: PostgresConnection) async throws -> Auth.Profile? {
        let rows = try await connection.fetch(ProfileStatement(id: id), logger: logger)
        return rows.first.map { id, name, email, phone, display, roles in
            Auth.Profile(
                userId: id.uuidString.lowercased(), username: name, email: email, phone: phone, displayName: display,
                roles: roles)
        }
    }

    /// ``profile(id:on:)``'s statement, prepared once per connection: `GET /v1/me` and every
    /// profile change read it, so PostgreSQL parses and plans it once, and each read sends only
    /// the id (no statement text, no description of the rows back).
    struct ProfileStatement: PostgresPreparedStatement {
        static let sql = "SELECT id, username, email, phone, display_name, roles FROM auth.users WHERE id = $1"
        static let bindingDataTypes: [PostgresDataType] = [.uuid]
        typealias Row = (UUID, String, String?, String?, String?, [String])

        let id: UUID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(id)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// Replaces a password hash (re-hashing with current parameters, or a new password).
    public func updatePasswordHash(_ id: UUID, to hash: String, now: Date) async throws {
        try await client.fetch(Self.setPasswordHash(id, to: hash, now: now), logger: logger)
    }

    /// The statement behind ``updatePasswordHash(_:to:now:)``, also run inside transactions.
    static func setPasswordHash(_ id: UUID, to hash: String, now: Date) -> PostgresQuery {
        "UPDATE auth.users SET password_hash = \(hash), updated_at = \(now) WHERE id = \(id)"
    }

    /// A login's first step: creates or locks the login counters of `username`, applies `change`
    /// to them (written back only when changed) and returns what `change` returned with the
    /// account, if there is one. Concurrent attempts at one username are counted one after another.
    ///
    /// Counters that are fresh (never used, or cleared by the last success: nearly every login)
    /// take one statement: it moves them from fresh to `change(.fresh)` only if they are still
    /// fresh, and reads the account. Any other state, or a race lost to a concurrent attempt, takes
    /// the general path: one transaction that locks the row, reads it, applies `change` and writes.
    public func admitLogin<T: Sendable>(
        _ username: Username, now: Date,
        _ change: @Sendable (LockoutPolicy.State) -> (LockoutPolicy.State, T)
    ) async throws -> (T, Account?) {
        let (next, result) = change(.fresh)
        if next != .fresh, let account = try await admitFresh(username, to: next, now: now) {
            return (result, account)
        }
        return try await admitLocked(username, now: now, change)
    }

    /// Moves the counters of `username` from fresh (or absent) to `next` in one statement and reads
    /// the account; nil when the counters were not fresh (nothing written then).
    private func admitFresh(_ username: Username, to next: LockoutPolicy.State, now: Date) async throws
        -> Account??
    {
        let rows = try await client.fetch(
            AdmitFreshStatement(username: username.value, next: next, now: now), logger: logger)
        var outcome: Account??
        for (admitted, id, name, hash, roles) in rows {
            guard admitted != nil else { return nil }
            if let id, let name, let hash {
                outcome = .some(Account(id: id, username: name, passwordHash: hash, roles: roles ?? []))
            } else {
                outcome = .some(nil)
            }
        }
        return outcome
    }

    /// ``admitFresh(_:to:now:)``'s statement, prepared once per connection: a login's first
    /// round trip, so PostgreSQL plans it once rather than at every login.
    struct AdmitFreshStatement: PostgresPreparedStatement {
        // A conflicting row is updated only while fresh; RETURNING then yields nothing, and the
        // LEFT JOIN still yields one row, with a NULL `admitted`, so "not fresh" is told apart
        // from "no such account".
        static let sql = """
            WITH counter AS (
                INSERT INTO auth.login_attempts AS a (username, attempts, held_until, updated_at)
                VALUES ($1, $2, $3, $4)
                ON CONFLICT (username) DO UPDATE
                SET attempts = EXCLUDED.attempts, held_until = EXCLUDED.held_until, updated_at = EXCLUDED.updated_at
                WHERE a.attempts = 0 AND a.held_until IS NULL
                RETURNING 1 AS admitted
            )
            SELECT c.admitted, u.id, u.username, u.password_hash, u.roles
            FROM (SELECT 1) one LEFT JOIN counter c ON true LEFT JOIN auth.users u ON u.username = $1
            """
        static let bindingDataTypes: [PostgresDataType] = [.text, .int8, .timestamptz, .timestamptz]
        typealias Row = (Int?, UUID?, String?, String?, [String]?)

        let username: String
        let next: LockoutPolicy.State
        let now: Date

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 4)
            bindings.append(username)
            bindings.append(next.attempts)
            bindings.append(next.heldUntil)
            bindings.append(now)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    private func admitLocked<T: Sendable>(
        _ username: Username, now: Date,
        _ change: @Sendable (LockoutPolicy.State) -> (LockoutPolicy.State, T)
    ) async throws -> (T, Account?) {
        try await client.transaction(logger: logger) { connection in
            // DO UPDATE (to the same value) locks an existing row as SELECT ... FOR UPDATE would,
            // and RETURNING reads it, so a new and an existing counter take one statement.
            let rows = try await connection.fetch(
                """
                WITH counter AS (
                    INSERT INTO auth.login_attempts (username, attempts, held_until, updated_at)
                    VALUES (\(username.value), 0, NULL, \(now))
                    ON CONFLICT (username) DO UPDATE SET attempts = auth.login_attempts.attempts
                    RETURNING attempts, held_until
                )
                SELECT c.attempts, c.held_until, u.id, u.username, u.password_hash, u.roles
                FROM counter c LEFT JOIN auth.users u ON u.username = \(username.value)
                """, logger: logger)
            var state = LockoutPolicy.State.fresh
            var account: Account?
            for try await (attempts, heldUntil, id, name, hash, roles) in rows.decode(
                (Int, Date?, UUID?, String?, String?, [String]?).self)
            {
                state = LockoutPolicy.State(attempts: attempts, heldUntil: heldUntil)
                if let id, let name, let hash {
                    account = Account(id: id, username: name, passwordHash: hash, roles: roles ?? [])
                }
            }
            let (next, result) = change(state)
            if next != state { try await write(next, for: username, now: now, on: connection) }
            return (result, account)
        }
    }

    /// After a successful login the counters of `username` start over, whatever they hold (the
    /// lockout policy's rule), so one statement does it without reading them first.
    public func clearLoginState(_ username: Username, now: Date) async throws {
        try await client.fetch(Self.clearLoginState(username.value, now: now), logger: logger)
    }

    /// The statement behind ``clearLoginState(_:now:)``, also run inside transactions (an
    /// administrator lifting a hold, a password reset). A row already clear is left alone, so a
    /// login by someone who never mistyped writes nothing.
    static func clearLoginState(_ username: String, now: Date) -> PostgresQuery {
        var binds = PostgresBindings(capacity: 2)
        binds.append(username)
        binds.append(now)
        return PostgresQuery(unsafeSQL: clearLoginStateSQL(username: "$1", now: "$2"), binds: binds)
    }

    /// The one statement that clears a username's login counters, with the placeholders of its
    /// two parameters (also the first step of ``SessionStore``'s prepared login statement).
    static func clearLoginStateSQL(username: String, now: String) -> String {
        """
        UPDATE auth.login_attempts SET attempts = 0, held_until = NULL, updated_at = \(now)
        WHERE username = \(username) AND (attempts <> 0 OR held_until IS NOT NULL)
        """
    }

    private func write(
        _ state: LockoutPolicy.State, for username: Username, now: Date, on connection: PostgresConnection
    ) async throws {
        try await connection.fetch(
            """
            UPDATE auth.login_attempts SET attempts = \(state.attempts), held_until = \(state.heldUntil),
            updated_at = \(now) WHERE username = \(username.value)
            """, logger: logger)
    }

    /// Applies `change` to the login counters of `username` under a row lock, so concurrent
    /// attempts are counted one after another; returns what `change` returned.
    public func withLoginState<T: Sendable>(
        _ username: Username, now: Date,
        _ change: @Sendable (LockoutPolicy.State) -> (LockoutPolicy.State, T)
    ) async throws -> T {
        try await client.transaction(logger: logger) { connection in
            try await connection.fetch(
                """
                INSERT INTO auth.login_attempts (username, attempts, held_until, updated_at)
                VALUES (\(username.value), 0, NULL, \(now)) ON CONFLICT (username) DO NOTHING
                """, logger: logger)
            let rows = try await connection.fetch(
                "SELECT attempts, held_until FROM auth.login_attempts WHERE username = \(username.value) FOR UPDATE",
                logger: logger)
            var state = LockoutPolicy.State.fresh
            for try await (attempts, heldUntil) in rows.decode((Int, Date?).self) {
                state = LockoutPolicy.State(attempts: attempts, heldUntil: heldUntil)
            }
            let (next, result) = change(state)
            if next != state { try await write(next, for: username, now: now, on: connection) }
            return result
        }
    }
}
