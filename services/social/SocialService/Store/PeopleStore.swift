import AuthContract
import Foundation
import Logging
import PostgresNIO
import Store
import SocialContract

/// The `social.people` table: the directory social keeps from auth's events, and the names its
/// notices use.
public struct PeopleStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Writes `entry` (from `auth.profile_changed`), keeping the user's privacy settings.
    public func apply(_ entry: DirectoryEntry, now: Date, in tx: Transaction) async throws {
        try await tx.connection.fetch(
            """
            INSERT INTO social.people (user_id, username, display_name, name_text, email_digests, phone_digest,
                updated_at)
            VALUES (\(entry.userId), \(entry.username), \(entry.displayName), \(entry.nameText),
                \(entry.emailDigests), \(entry.phoneDigest), \(now))
            ON CONFLICT (user_id) DO UPDATE SET username = excluded.username, display_name = excluded.display_name,
                name_text = excluded.name_text, email_digests = excluded.email_digests,
                phone_digest = excluded.phone_digest, updated_at = excluded.updated_at
            """, logger: logger)
    }

    /// The name notices use for `user` (display name, else username); nil when the directory
    /// does not know them.
    public func name(of user: UUID) async throws -> String? {
        let rows = try await client.fetch(
            "SELECT username, display_name FROM social.people WHERE user_id = \(user)", logger: logger)
        for try await (username, display) in rows.decode((String, String?).self) { return display ?? username }
        return nil
    }

    /// Forgets everything social keeps of `user` (after `auth.account_deleted`): the directory
    /// entry, requests either way, friendships on both sides, blocks either way, the wish list, the address book and the profile's addresses.
    public func forget(_ user: UUID, in tx: Transaction) async throws {
        try await tx.connection.fetch(
            """
            WITH people AS (DELETE FROM social.people WHERE user_id = \(user)),
                 requests AS (DELETE FROM social.friend_requests WHERE from_user = \(user) OR to_user = \(user)),
                 friends AS (DELETE FROM social.friendships WHERE user_id = \(user) OR friend_id = \(user)),
                 favourites AS (DELETE FROM social.favourites WHERE user_id = \(user)),
                 contacts AS (DELETE FROM social.contacts WHERE user_id = \(user)),
                 addresses AS (DELETE FROM social.addresses WHERE user_id = \(user))
            DELETE FROM social.blocks WHERE blocker = \(user) OR blocked = \(user)
            """, logger: logger)
    }
}
