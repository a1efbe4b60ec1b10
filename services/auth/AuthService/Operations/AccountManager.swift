import AuthContract
import Contract
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import Store

/// What an account holder (and an admin) can change: profile, password, roles, the account itself.
public struct AccountManager: Sendable {
    let accounts: AccountStore
    let sessions: SessionStore
    let authenticator: Authenticator
    let issuer: TokenIssuer
    let publisher: EventPublisher
    let clock: any WallClock

    public init(
        accounts: AccountStore, sessions: SessionStore, authenticator: Authenticator, issuer: TokenIssuer,
        publisher: EventPublisher, clock: any WallClock
    ) {
        self.accounts = accounts
        self.sessions = sessions
        self.authenticator = authenticator
        self.issuer = issuer
        self.publisher = publisher
        self.clock = clock
    }

    /// The profile of `userId`; `not_found` when the account is gone.
    public func profile(_ userId: UUID) async throws -> Auth.Profile {
        guard let profile = try await accounts.profile(id: userId) else {
            throw ServiceError(.notFound, "the account no longer exists")
        }
        return profile
    }

    /// Applies `changes` after checking each field: a username by the rules of registration
    /// (``Username``; `already_exists` when another account has it), e-mail address, E.164 phone,
    /// a display name of 1-100 characters without control characters. An empty string clears
    /// e-mail, phone or display name.
    public func updateProfile(_ userId: UUID, _ changes: Auth.ProfileChanges) async throws -> Auth.Profile {
        var assignments: [(column: String, value: String?)] = []
        let newUsername: String? =
            if let raw = changes.username { try Username(raw, field: "username").value } else { nil }
        if let newUsername { assignments.append(("username", newUsername)) }
        if let email = changes.email?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() {
            if !email.isEmpty, !Username.isValidEmail(email) {
                throw ServiceError.invalidArgument("email is not a valid e-mail address", field: "email")
            }
            assignments.append(("email", email.isEmpty ? nil : email))
        }
        if let phone = changes.phone?.trimmingCharacters(in: .whitespaces) {
            if !phone.isEmpty, !Authenticator.isE164(phone) {
                throw ServiceError.invalidArgument("phone must be in E.164 form, e.g. +46701234567", field: "phone")
            }
            assignments.append(("phone", phone.isEmpty ? nil : phone))
        }
        if let name = changes.displayName?.trimmingCharacters(in: .whitespacesAndNewlines) {
            if name.count > 100 {
                throw ServiceError.invalidArgument("displayName is longer than 100 characters", field: "displayName")
            }
            if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw ServiceError.invalidArgument(
                    "displayName must not contain control characters", field: "displayName")
            }
            assignments.append(("display_name", name.isEmpty ? nil : name))
        }
        guard !assignments.isEmpty else { return try await profile(userId) }
        let (event, profile) = try await accounts.client.transaction(logger: accounts.logger) { connection in
            do {
                try await accounts.update(userId, assignments, now: clock.now(), on: connection)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                throw ServiceError(
                    .alreadyExists, "the username '\(newUsername ?? "")' is taken",
                    details: ["field": "username"])
            }
            guard let profile = try await accounts.profile(id: userId, on: connection) else {
                throw ServiceError(.notFound, "the account no longer exists")
            }
            let event = try await publisher.append(
                topic: Auth.ProfileChanged.topic, payload: Auth.ProfileChanged(profile), requestId: nil,
                on: connection, logger: accounts.logger)
            return (event, profile)
        }
        publisher.announce(event)
        return profile
    }

    /// Checks the current password (the lockout rules apply, as to a login), sets the new one
    /// (the rules apply), signs out every earlier session and opens a new one.
    public func changePassword(_ userId: UUID, _ request: Auth.ChangePassword.Request) async throws -> Auth.Session {
        guard let account = try await accounts.account(id: userId) else {
            throw ServiceError(.notFound, "the account no longer exists")
        }
        try authenticator.policy.check(request.newPassword, field: "newPassword")
        do {
            _ = try await authenticator.verify(.init(username: account.username, password: request.currentPassword))
        } catch let error as ServiceError where error.code == .unauthenticated {
            throw ServiceError(
                .unauthenticated, "the current password is wrong", details: ["field": .string("currentPassword")])
        }
        let hash = try await authenticator.hasher.hash(request.newPassword)
        let now = clock.now()
        let refresh = try await accounts.client.transaction(logger: accounts.logger) { connection in
            try await accounts.setPasswordHash(userId, to: hash, now: now, on: connection)
            try await sessions.revokeAll(userId: userId, now: now, on: connection)
            return try await sessions.issue(userId: userId, now: now, on: connection)
        }
        let access = try await issuer.issue(userId: userId.uuidString.lowercased(), roles: account.roles)
        return .init(accessToken: access.token, refreshToken: refresh, expiresIn: access.expiresIn)
    }

    /// Deletes the account; its sessions, devices and reset tokens go with it (foreign keys), and
    /// event `auth.account_deleted` tells the other services.
    public func delete(_ userId: UUID, requestId: String) async throws {
        let event: StoredEvent? = try await accounts.client.transaction(logger: accounts.logger) { connection in
            let rows = try await connection.fetch(
                "DELETE FROM auth.users WHERE id = \(userId) RETURNING id", logger: accounts.logger)
            guard try await rows.collect().count == 1 else { return nil }
            return try await publisher.append(
                topic: Auth.AccountDeleted.topic, payload: Auth.AccountDeleted(userId: userId.uuidString.lowercased()),
                requestId: requestId, on: connection, logger: accounts.logger)
        }
        guard let event else { throw ServiceError(.notFound, "the account no longer exists") }
        publisher.announce(event)
    }

    /// Adds `grant` and removes `revoke` (admin only). Every account keeps `user`; an admin cannot
    /// take the admin role from themselves (someone must be left to give it back).
    public func grantRoles(_ request: Auth.GrantRoles.Request, by admin: Actor) async throws -> Auth.Profile {
        guard let userId = UUID(uuidString: request.userId) else {
            throw ServiceError.invalidArgument("userId must be a UUID", field: "userId")
        }
        let known = Auth.Role.all.map(\.rawValue)
        let unknown = (request.grant + request.revoke).filter { !known.contains($0) }
        guard unknown.isEmpty else {
            throw ServiceError(
                .invalidArgument,
                "unknown role(s) \(unknown.joined(separator: ", ")); roles are \(known.joined(separator: ", "))",
                details: ["field": .string("roles")])
        }
        guard !request.revoke.contains(Auth.Role.user.rawValue) else {
            throw ServiceError.invalidArgument("every account keeps the 'user' role", field: "revoke")
        }
        guard !(request.revoke.contains(Auth.Role.admin.rawValue) && admin.userId.lowercased() == request.userId.lowercased())
        else {
            throw ServiceError(.failedPrecondition, "an admin cannot revoke their own admin role")
        }
        let updated = try await accounts.changeRoles(userId, now: clock.now()) { roles in
            let kept = roles.filter { !request.revoke.contains($0) }
            let added = request.grant.filter { !kept.contains($0) }
            return known.filter { (kept + added).contains($0) }
        }
        guard updated else { throw ServiceError(.notFound, "no account with id \(request.userId)") }
        return try await profile(userId)
    }
}

extension AccountStore {
    /// Sets the given columns (a fixed set chosen by the caller, never user input) of one account.
    func update(
        _ id: UUID, _ assignments: [(column: String, value: String?)], now: Date, on connection: PostgresConnection
    ) async throws {
        let allowed: Set = ["username", "email", "phone", "display_name"]
        var bindings = PostgresBindings()
        var sets: [String] = []
        for (column, value) in assignments {
            precondition(allowed.contains(column), "unexpected column \(column)")
            bindings.append(value)
            sets.append("\(column) = $\(bindings.count)")
        }
        bindings.append(now)
        sets.append("updated_at = $\(bindings.count)")
        bindings.append(id)
        let sql = "UPDATE auth.users SET \(sets.joined(separator: ", ")) WHERE id = $\(bindings.count)"
        try await connection.fetch(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
    }

    /// Replaces a password hash on `connection` (inside the caller's transaction).
    func setPasswordHash(_ id: UUID, to hash: String, now: Date, on connection: PostgresConnection) async throws {
        try await connection.fetch(Self.setPasswordHash(id, to: hash, now: now), logger: logger)
    }

    /// Rewrites the roles of `id` under a row lock; `false` when there is no such account.
    func changeRoles(_ id: UUID, now: Date, _ change: @Sendable ([String]) -> [String]) async throws -> Bool {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.fetch(
                "SELECT roles FROM auth.users WHERE id = \(id) FOR UPDATE", logger: logger)
            var current: [String]?
            for try await roles in rows.decode([String].self) { current = roles }
            guard let current else { return false }
            let next = change(current)
            if next != current {
                try await connection.fetch(
                    "UPDATE auth.users SET roles = \(next), updated_at = \(now) WHERE id = \(id)", logger: logger)
            }
            return true
        }
    }

    /// Clears the login counters and any hold of `username`.
    func liftHold(_ username: String, now: Date, on connection: PostgresConnection) async throws {
        try await connection.fetch(Self.clearLoginState(username, now: now), logger: logger)
    }
}
