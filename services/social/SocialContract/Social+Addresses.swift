import CommonContract
import Contract

extension Social {
    /// The caller's billing and shipping addresses (Gifter's profile screen), and whether friends
    /// may see the shipping one: a gift from a friend is then shipped there without the friend
    /// asking. Sharing is off until the user turns it on.
    public struct Addresses: Codable, Sendable, Equatable {
        public var billingAddress: PostalAddress?
        public var shippingAddress: PostalAddress?
        /// Whether friends' gifts may ship to `shippingAddress` (false when left out).
        public var shareShippingWithFriends: Bool
        public init(
            billingAddress: PostalAddress? = nil, shippingAddress: PostalAddress? = nil,
            shareShippingWithFriends: Bool = false
        ) {
            self.billingAddress = billingAddress
            self.shippingAddress = shippingAddress
            self.shareShippingWithFriends = shareShippingWithFriends
        }

        enum CodingKeys: String, CodingKey { case billingAddress, shippingAddress, shareShippingWithFriends }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            billingAddress = try container.decodeIfPresent(PostalAddress.self, forKey: .billingAddress)
            shippingAddress = try container.decodeIfPresent(PostalAddress.self, forKey: .shippingAddress)
            shareShippingWithFriends =
                try container.decodeIfPresent(Bool.self, forKey: .shareShippingWithFriends) ?? false
        }
    }

    /// `get_addresses`: the caller's addresses (none, not shared, until set).
    public enum GetAddresses: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "get_addresses"
        public typealias Request = Empty
        public typealias Reply = Addresses
    }

    /// `set_addresses`: replaces the caller's addresses and the sharing setting (an address left
    /// out or null is removed).
    public enum SetAddresses: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "set_addresses"
        public typealias Request = Addresses
        public typealias Reply = Addresses
    }
}
