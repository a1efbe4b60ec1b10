import AuthContract
import Contract
import Foundation
import ServiceKit
import Store

/// What an account holder (and an admin) can change: profile, password, roles, the account itself.
public struct AccountHandler: Sendable {
    let accounts: AccountStore
    let sessions: SessionStore
    let transactions: Transactions
    let credentials: CredentialHandler
    let issuer: TokenIssuer
    let publisher: EventPublisher
    let clock: any WallClock

    public init(
        accounts: AccountStore, sessions: SessionStore, transactions: Transactions, credentials: CredentialHandler,
        issuer: TokenIssuer, publisher: EventPublisher, clock: any WallClock
    ) {
        self.accounts = accounts
        self.sessions = sessions
        self.transactions = transactions
        self.credentials = credentials
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
        var assignments: [AccountStore.ProfileField] = []
        if let raw = changes.username { assignments.append(.username(try Username(raw, field: "username").value)) }
        if let email = changes.email?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() {
            if !email.isEmpty, !Username.isValidEmail(email) {
                throw ServiceError.invalidArgument("email is not a valid e-mail address", field: "email")
            }
            assignments.append(.email(email.isEmpty ? nil : email))
        }
        if let phone = changes.phone?.trimmingCharacters(in: .whitespaces) {
            if !phone.isEmpty, !CredentialHandler.isE164(phone) {
                throw ServiceError.invalidArgument("phone must be in E.164 form, e.g. +46701234567", field: "phone")
            }
            assignments.append(.phone(phone.isEmpty ? nil : phone))
        }
        if let name = changes.displayName?.trimmingCharacters(in: .whitespacesAndNewlines) {
            if name.count > 100 {
                throw ServiceError.invalidArgument("displayName is longer than 100 characters", field: "displayName")
            }
            if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw ServiceError.invalidArgument(
                    "displayName must not contain control characters", field: "displayName")
            }
            assignments.append(.displayName(name.isEmpty ? nil : name))
        }
        guard !assignments.isEmpty else { return try await profile(userId) }
        let (event, profile) = try await transactions.run { tx in
            try await accounts.update(userId, assignments, now: clock.now(), in: tx)
            guard let profile = try await accounts.profile(id: userId, in: tx) else {
                throw ServiceError(.notFound, "the account no longer exists")
            }
            let event = try await publisher.append(
                topic: Auth.ProfileChanged.topic, payload: Auth.ProfileChanged(profile), requestId: nil, in: tx)
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
        try credentials.policy.check(request.newPassword, field: "newPassword")
        do {
            _ = try await credentials.verify(.init(username: account.username, password: request.currentPassword))
        } catch let error as ServiceError where error.code == .unauthenticated {
            throw ServiceError(
                .unauthenticated, "the current password is wrong", details: ["field": .string("currentPassword")])
        }
        let hash = try await credentials.hasher.hash(request.newPassword)
        let now = clock.now()
        let refresh = try await transactions.run { tx in
            try await accounts.setPasswordHash(userId, to: hash, now: now, in: tx)
            try await sessions.revokeAll(userId: userId, now: now, in: tx)
            return try await sessions.issue(userId: userId, now: now, in: tx)
        }
        let access = try await issuer.issue(userId: userId.uuidString.lowercased(), roles: account.roles)
        return .init(accessToken: access.token, refreshToken: refresh, expiresIn: access.expiresIn)
    }

    /// Deletes the account; its sessions, devices and reset tokens go with it (foreign keys), and
    /// event `auth.account_deleted` tells the other services.
    @discardableResult
    public func delete(_ userId: UUID, requestId: String) async throws -> Empty {
        let event: StoredEvent? = try await transactions.run { tx in
            guard try await accounts.delete(userId, in: tx) else { return nil }
            return try await publisher.append(
                topic: Auth.AccountDeleted.topic, payload: Auth.AccountDeleted(userId: userId.uuidString.lowercased()),
                requestId: requestId, in: tx)
        }
        guard let event else { throw ServiceError(.notFound, "the account no longer exists") }
        publisher.announce(event)
        return Empty()
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
