import CommonContract
import Contract
import Foundation
import Logging
import PostgresNIO
import SocialContract

/// The `social.addresses` table: each user's billing and shipping address and whether friends
/// may ship gifts to the shipping one.
public struct AddressStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// `user`'s addresses (none, not shared, when never set).
    func addresses(of user: UUID) async throws -> Social.Addresses {
        let rows = try await client.fetch(
            "SELECT billing::text, shipping::text, share_shipping FROM social.addresses WHERE user_id = \(user)",
            logger: logger)
        for try await (billing, shipping, share) in rows.decode((String?, String?, Bool).self) {
            return Social.Addresses(
                billingAddress: try Self.address(billing), shippingAddress: try Self.address(shipping),
                shareShippingWithFriends: share)
        }
        return Social.Addresses()
    }

    /// Replaces `user`'s addresses.
    func set(_ addresses: Social.Addresses, of user: UUID, now: Date) async throws {
        try await client.fetch(
            """
            INSERT INTO social.addresses (user_id, billing, shipping, share_shipping, updated_at)
            VALUES (\(user), \(try ContactStore.json(addresses.billingAddress))::jsonb,
                \(try ContactStore.json(addresses.shippingAddress))::jsonb, \(addresses.shareShippingWithFriends), \(now))
            ON CONFLICT (user_id) DO UPDATE SET billing = excluded.billing, shipping = excluded.shipping,
                share_shipping = excluded.share_shipping, updated_at = excluded.updated_at
            """, logger: logger)
    }

    /// `user`'s shipping address if they share it with friends (the friendship is the caller's
    /// to check), or their own shipping address when `own`.
    func shipping(of user: UUID, own: Bool) async throws -> PostalAddress? {
        let rows = try await client.fetch(
            """
            SELECT shipping::text FROM social.addresses
            WHERE user_id = \(user) AND (share_shipping OR \(own)) AND shipping IS NOT NULL
            """, logger: logger)
        for try await shipping in rows.decode(String?.self) { return try Self.address(shipping) }
        return nil
    }

    static func address(_ json: String?) throws -> PostalAddress? {
        try json.map { try Wire.makeDecoder().decode(PostalAddress.self, from: Data($0.utf8)) }
    }
}
