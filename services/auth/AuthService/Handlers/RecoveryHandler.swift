import AuthContract
import Contract
import Crypto
import Foundation
import PasswordHashing
import ServiceKit
import Store

/// Password reset and username reminder by e-mail (Gifter 5.2.2.1.5).
///
/// A request never says whether an account matched: the caller gets the same answer either way.
/// The mail itself goes out through an event that notify delivers. A reset token is 256 random
/// bits, stored as SHA-256, single use and valid ``tokenLifetime``; confirming it sets a new
/// password, signs out every session and lifts a login hold.
public struct RecoveryHandler: Sendable {
    /// How long a reset token is valid.
    public var tokenLifetime: TimeInterval = 30 * 60
    /// Mails of each kind one account (or address) receives per hour at most; more requests are
    /// answered the same but send nothing.
    public var mailsPerHour = 5

    let accounts: AccountStore
    let sessions: SessionStore
    let resets: RecoveryStore
    let transactions: Transactions
    let policy: PasswordPolicy
    let hasher: PasswordHasher
    let publisher: EventPublisher
    let clock: any WallClock

    public init(
        accounts: AccountStore, sessions: SessionStore, resets: RecoveryStore, transactions: Transactions,
        policy: PasswordPolicy, hasher: PasswordHasher, publisher: EventPublisher, clock: any WallClock
    ) {
        self.accounts = accounts
        self.sessions = sessions
        self.resets = resets
        self.transactions = transactions
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

    /// `request_password_reset`: ``requestReset(_:requestId:)``, answered no sooner than ``answerFloor``.
    public func requestResetEvenly(_ request: Auth.RequestPasswordReset.Request, requestId: String) async throws
        -> Empty
    {
        try await evenly { try await requestReset(request, requestId: requestId) }
        return Empty()
    }

    /// `request_username_reminder`: ``requestReminder(_:requestId:)``, answered no sooner than
    /// ``answerFloor``.
    public func requestReminderEvenly(_ request: Auth.RequestUsernameReminder.Request, requestId: String)
        async throws -> Empty
    {
        try await evenly { try await requestReminder(request, requestId: requestId) }
        return Empty()
    }

    /// Sends a reset token to the e-mail on file of the account named by username or e-mail.
    /// Exactly one of the two must be given; anything else is answered alike.
    public func requestReset(_ request: Auth.RequestPasswordReset.Request, requestId: String) async throws {
        let username = request.username?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let email = request.email?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() ?? ""
        guard username.isEmpty != email.isEmpty else {
            throw ServiceError.invalidArgument("send either username or email", field: "username")
        }
        let targets: [RecoveryStore.MailTarget]
        if !username.isEmpty {
            guard let name = try? Username(username) else { return }
            targets = try await resets.mailTargets(username: name.value)
        } else {
            targets = try await resets.mailTargets(email: email)
        }
        let now = clock.now()
        let hourAgo = now.addingTimeInterval(-3600)
        for target in targets {
            let token = SessionStore.newToken()
            let expires = now.addingTimeInterval(tokenLifetime)
            let event: StoredEvent? = try await transactions.run { tx in
                try await resets.lockAccount(target.id, in: tx)
                guard try await resets.resetCount(of: target.id, since: hourAgo, in: tx) < mailsPerHour else {
                    return nil
                }
                try await resets.addReset(
                    digest: SessionStore.digest(token), of: target.id, now: now, expires: expires, in: tx)
                let payload = Auth.PasswordResetRequested(
                    userId: target.id.uuidString.lowercased(), username: target.username, email: target.email,
                    token: token, expiresAt: Int64((expires.timeIntervalSince1970 * 1000).rounded()))
                return try await publisher.append(
                    topic: Auth.PasswordResetRequested.topic, payload: payload, requestId: requestId, in: tx)
            }
            if let event { publisher.announce(event) }
        }
    }

    /// Sets a new password with a reset token: the password rules apply; the token must be
    /// unused and unexpired. Signs out every session of the account and lifts any login hold.
    @discardableResult
    public func confirmReset(_ request: Auth.ConfirmPasswordReset.Request) async throws -> Empty {
        try policy.check(request.newPassword, field: "newPassword")
        let invalid = ServiceError.invalidArgument(
            "the reset token is not valid: it is wrong, already used or expired; request a new one", field: "token")
        guard !request.token.isEmpty, request.token.utf8.count <= 512 else { throw invalid }
        let hash = try await hasher.hash(request.newPassword)
        let now = clock.now()
        let digest = SessionStore.digest(request.token)
        let confirmed = try await transactions.run { tx in
            guard let (userId, username) = try await resets.spendReset(digest: digest, now: now, in: tx) else {
                return false
            }
            try await accounts.setPasswordHash(userId, to: hash, now: now, in: tx)
            try await sessions.revokeAll(userId: userId, now: now, in: tx)
            try await accounts.liftHold(username, now: now, in: tx)
            return true
        }
        guard confirmed else { throw invalid }
        return Empty()
    }

    /// Mails the usernames registered with `email`, if there are any.
    public func requestReminder(_ request: Auth.RequestUsernameReminder.Request, requestId: String) async throws {
        let email = request.email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard Username.isValidEmail(email) else {
            throw ServiceError.invalidArgument("email is not a valid e-mail address", field: "email")
        }
        let targets = try await resets.mailTargets(email: email)
        guard !targets.isEmpty else { return }
        let now = clock.now()
        let hourAgo = now.addingTimeInterval(-3600)
        let event: StoredEvent? = try await transactions.run { tx in
            try await resets.lockReminders(of: email, in: tx)
            guard try await resets.reminderCount(of: email, since: hourAgo, in: tx) < mailsPerHour else { return nil }
            try await resets.addReminder(of: email, now: now, in: tx)
            let payload = Auth.UsernameReminderRequested(email: email, usernames: targets.map(\.username).sorted())
            return try await publisher.append(
                topic: Auth.UsernameReminderRequested.topic, payload: payload, requestId: requestId, in: tx)
        }
        if let event { publisher.announce(event) }
    }
}
