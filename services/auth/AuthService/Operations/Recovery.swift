import AuthContract
import Contract
import Crypto
import Foundation
import PasswordHashing
import Logging
import PostgresNIO
import ServiceKit
import Store

/// Password reset and username reminder by e-mail (Gifter 5.2.2.1.5).
///
/// A request never says whether an account matched: the caller gets the same answer either way.
/// The mail itself goes out through an event that notify delivers. A reset token is 256 random
/// bits, stored as SHA-256, single use and valid ``tokenLifetime``; confirming it sets a new
/// password, signs out every session and lifts a login hold.
public struct Recovery: Sendable {
    /// How long a reset token is valid.
    public var tokenLifetime: TimeInterval = 30 * 60
    /// Mails of each kind one account (or address) receives per hour at most; more requests are
    /// answered the same but send nothing.
    public var mailsPerHour = 5

    let accounts: AccountStore
    let sessions: SessionStore
    let policy: PasswordPolicy
    let hasher: PasswordHasher
    let publisher: EventPublisher
    let clock: any WallClock

    public init(
        accounts: AccountStore, sessions: SessionStore, policy: PasswordPolicy, hasher: PasswordHasher,
        publisher: EventPublisher, clock: any WallClock
    ) {
        self.accounts = accounts
        self.sessions = sessions
        self.policy = policy
        self.hasher = hasher
        self.publisher = publisher
        self.clock = clock
    }

    /// How long every reset or reminder request takes at least, so that the work done for a
    /// matching account (a token, an event) cannot be told from the time of the answer.
    public var answerFloor: Duration = .milliseconds(150)

    /// Runs `work`, then waits out the rest of ``answerFloor`` (also when `work` throws).
    public func evenly(_ work: () async throws -> Void) async throws {
        let done = ContinuousClock.now + answerFloor
        var failure: (any Error)?
        do { try await work() } catch { failure = error }
        try? await Task.sleep(until: done, clock: .continuous)
        if let failure { throw failure }
    }

    /// Sends a reset token to the e-mail on file of the account named by username or e-mail.
    /// Exactly one of the two must be given; anything else is answered alike.
    public func requestReset(_ request: Auth.RequestPasswordReset.Request, requestId: String) async throws {
        let username = request.username?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let email = request.email?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() ?? ""
        guard username.isEmpty != email.isEmpty else {
            throw ServiceError.invalidArgument("send either username or email", field: "username")
        }
        let targets: [(id: UUID, username: String, email: String)]
        if !username.isEmpty {
            guard let name = try? Username(username) else { return }
            targets = try await accounts.mailTargets("username = \(name.value)")
        } else {
            targets = try await accounts.mailTargets("lower(email) = \(email)")
        }
        let now = clock.now()
        let hourAgo = now.addingTimeInterval(-3600)
        for target in targets {
            let token = SessionStore.newToken()
            let expires = now.addingTimeInterval(tokenLifetime)
            let event: StoredEvent? = try await accounts.client.transaction(logger: accounts.logger) { connection in
                try await connection.fetch(
                    "SELECT 1 FROM auth.users WHERE id = \(target.id) FOR UPDATE", logger: accounts.logger)
                let recent = try await connection.fetch(
                    "SELECT count(*) FROM auth.password_resets WHERE user_id = \(target.id) AND created_at > \(hourAgo)",
                    logger: accounts.logger)
                for try await count in recent.decode(Int.self) where count >= mailsPerHour { return nil }
                try await connection.fetch(
                    """
                    INSERT INTO auth.password_resets (token_hash, user_id, created_at, expires_at)
                    VALUES (\(SessionStore.digest(token)), \(target.id), \(now), \(expires))
                    """, logger: accounts.logger)
                let payload = Auth.PasswordResetRequested(
                    userId: target.id.uuidString.lowercased(), username: target.username, email: target.email,
                    token: token, expiresAt: Int64((expires.timeIntervalSince1970 * 1000).rounded()))
                return try await publisher.append(
                    topic: Auth.PasswordResetRequested.topic, payload: payload, requestId: requestId, on: connection,
                    logger: accounts.logger)
            }
            if let event { publisher.announce(event) }
        }
    }

    /// Sets a new password with a reset token: the password rules apply; the token must be
    /// unused and unexpired. Signs out every session of the account and lifts any login hold.
    public func confirmReset(_ request: Auth.ConfirmPasswordReset.Request) async throws {
        try policy.check(request.newPassword, field: "newPassword")
        let invalid = ServiceError.invalidArgument(
            "the reset token is not valid: it is wrong, already used or expired; request a new one", field: "token")
        guard !request.token.isEmpty, request.token.utf8.count <= 512 else { throw invalid }
        let hash = try await hasher.hash(request.newPassword)
        let now = clock.now()
        let digest = SessionStore.digest(request.token)
        let confirmed = try await accounts.client.transaction(logger: accounts.logger) { connection in
            let rows = try await connection.fetch(
                """
                SELECT r.user_id, u.username FROM auth.password_resets r JOIN auth.users u ON u.id = r.user_id
                WHERE r.token_hash = \(digest) AND r.used_at IS NULL AND r.expires_at > \(now)
                FOR UPDATE OF r
                """, logger: accounts.logger)
            var found: (UUID, String)?
            for try await row in rows.decode((UUID, String).self) { found = row }
            guard let (userId, username) = found else { return false }
            try await connection.fetch(
                "UPDATE auth.password_resets SET used_at = \(now) WHERE user_id = \(userId) AND used_at IS NULL",
                logger: accounts.logger)
            try await accounts.setPasswordHash(userId, to: hash, now: now, on: connection)
            try await sessions.revokeAll(userId: userId, now: now, on: connection)
            try await accounts.liftHold(username, now: now, on: connection)
            return true
        }
        guard confirmed else { throw invalid }
    }

    /// Mails the usernames registered with `email`, if there are any.
    public func requestReminder(_ request: Auth.RequestUsernameReminder.Request, requestId: String) async throws {
        let email = request.email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard Username.isValidEmail(email) else {
            throw ServiceError.invalidArgument("email is not a valid e-mail address", field: "email")
        }
        let targets = try await accounts.mailTargets("lower(email) = \(email)")
        guard !targets.isEmpty else { return }
        let now = clock.now()
        let hourAgo = now.addingTimeInterval(-3600)
        let event: StoredEvent? = try await accounts.client.transaction(logger: accounts.logger) { connection in
            try await connection.fetch(
                "SELECT pg_advisory_xact_lock(hashtext('auth.username_reminders'), hashtext(\(email)))",
                logger: accounts.logger)
            let recent = try await connection.fetch(
                "SELECT count(*) FROM auth.username_reminders WHERE email = \(email) AND requested_at > \(hourAgo)",
                logger: accounts.logger)
            for try await count in recent.decode(Int.self) where count >= mailsPerHour { return nil }
            try await connection.fetch(
                "INSERT INTO auth.username_reminders (email, requested_at) VALUES (\(email), \(now))",
                logger: accounts.logger)
            let payload = Auth.UsernameReminderRequested(email: email, usernames: targets.map(\.username).sorted())
            return try await publisher.append(
                topic: Auth.UsernameReminderRequested.topic, payload: payload, requestId: requestId, on: connection,
                logger: accounts.logger)
        }
        if let event { publisher.announce(event) }
    }
}

extension AccountStore {
    /// Accounts matching `condition` that have an e-mail address to write to.
    func mailTargets(_ condition: PostgresQuery) async throws -> [(id: UUID, username: String, email: String)] {
        let query = PostgresQuery(
            unsafeSQL: "SELECT id, username, email FROM auth.users WHERE email IS NOT NULL AND \(condition.sql)",
            binds: condition.binds)
        let rows = try await client.fetch(query, logger: logger)
        var targets: [(id: UUID, username: String, email: String)] = []
        for try await (id, username, email) in rows.decode((UUID, String, String).self) {
            targets.append((id, username, email))
        }
        return targets
    }
}
