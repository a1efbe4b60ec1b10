import Foundation
import Logging
import PostgresNIO
import Store

/// Password-reset tokens and username reminders in schema `auth`, and the accounts they are
/// mailed to.
public struct RecoveryStore: Sendable {
    /// An account with an e-mail address to write to.
    public struct MailTarget: Sendable, Equatable {
        public let id: UUID
        public let username: String
        public let email: String
    }

    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The account with canonical username `username`, if it has an e-mail address.
    func mailTargets(username: String) async throws -> [MailTarget] {
        try await mailTargets(
            "SELECT id, username, email FROM auth.users WHERE email IS NOT NULL AND username = \(username)")
    }

    /// The accounts whose e-mail address is `email` (lower case).
    func mailTargets(email: String) async throws -> [MailTarget] {
        try await mailTargets(
            "SELECT id, username, email FROM auth.users WHERE email IS NOT NULL AND lower(email) = \(email)")
    }

    private func mailTargets(_ query: PostgresQuery) async throws -> [MailTarget] {
        let rows = try await client.fetch(query, logger: logger)
        var targets: [MailTarget] = []
        for try await (id, username, email) in rows.decode((UUID, String, String).self) {
            targets.append(MailTarget(id: id, username: username, email: email))
        }
        return targets
    }

    /// Locks account `id` until the transaction ends, so that its reset requests are counted one
    /// after another.
    func lockAccount(_ id: UUID, in tx: Transaction) async throws {
        try await tx.connection.fetch("SELECT 1 FROM auth.users WHERE id = \(id) FOR UPDATE", logger: tx.logger)
    }

    /// Reset tokens made for `userId` after `since`.
    func resetCount(of userId: UUID, since: Date, in tx: Transaction) async throws -> Int {
        let rows = try await tx.connection.fetch(
            "SELECT count(*) FROM auth.password_resets WHERE user_id = \(userId) AND created_at > \(since)",
            logger: tx.logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// Stores a reset token (its SHA-256 `digest`) for `userId`.
    func addReset(digest: Data, of userId: UUID, now: Date, expires: Date, in tx: Transaction) async throws {
        try await tx.connection.fetch(
            """
            INSERT INTO auth.password_resets (token_hash, user_id, created_at, expires_at)
            VALUES (\(digest), \(userId), \(now), \(expires))
            """, logger: tx.logger)
    }

    /// Spends the unused, unexpired reset token with `digest`, and with it every other unused
    /// token of its account; the account's id and username, or nil when there is no such token.
    func spendReset(digest: Data, now: Date, in tx: Transaction) async throws -> (UUID, String)? {
        let rows = try await tx.connection.fetch(
            """
            SELECT r.user_id, u.username FROM auth.password_resets r JOIN auth.users u ON u.id = r.user_id
            WHERE r.token_hash = \(digest) AND r.used_at IS NULL AND r.expires_at > \(now)
            FOR UPDATE OF r
            """, logger: tx.logger)
        var found: (UUID, String)?
        for try await row in rows.decode((UUID, String).self) { found = row }
        guard let (userId, username) = found else { return nil }
        try await tx.connection.fetch(
            "UPDATE auth.password_resets SET used_at = \(now) WHERE user_id = \(userId) AND used_at IS NULL",
            logger: tx.logger)
        return (userId, username)
    }

    /// Locks the reminders of `email` until the transaction ends, so that they are counted one
    /// after another (there may be no row to lock yet).
    func lockReminders(of email: String, in tx: Transaction) async throws {
        try await tx.connection.fetch(
            "SELECT pg_advisory_xact_lock(hashtext('auth.username_reminders'), hashtext(\(email)))", logger: tx.logger)
    }

    /// Username reminders mailed to `email` after `since`.
    func reminderCount(of email: String, since: Date, in tx: Transaction) async throws -> Int {
        let rows = try await tx.connection.fetch(
            "SELECT count(*) FROM auth.username_reminders WHERE email = \(email) AND requested_at > \(since)",
            logger: tx.logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// Records a username reminder mailed to `email`.
    func addReminder(of email: String, now: Date, in tx: Transaction) async throws {
        try await tx.connection.fetch(
            "INSERT INTO auth.username_reminders (email, requested_at) VALUES (\(email), \(now))", logger: tx.logger)
    }
}
