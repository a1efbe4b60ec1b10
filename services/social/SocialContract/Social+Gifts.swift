import CommonContract
import Contract

extension Social {
    /// `check_gift`: asked by orders (a service call: no actor, or an admin) before it charges a
    /// gift: the item's current price and availability from the catalogue, and whether the buyer
    /// and the recipient are friends. Answers facts; orders decides.
    public enum CheckGift: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "check_gift"
        public struct Request: Codable, Sendable, Equatable {
            public var buyerId: String
            public var itemId: String
            /// The recipient, when the gift is for someone else.
            public var friendUserId: String?
            public init(buyerId: String, itemId: String, friendUserId: String? = nil) {
                self.buyerId = buyerId
                self.itemId = itemId
                self.friendUserId = friendUserId
            }
        }
        public struct Reply: Codable, Sendable, Equatable {
            public var itemId: String
            public var title: String
            /// The price now, per unit.
            public var unitPrice: Money
            public var available: Bool
            /// Whether `friendUserId` is the buyer's friend (nil when no recipient was named).
            public var friends: Bool?
            /// The buyer's name as friends see it, for the recipient's notice.
            public var buyerName: String?
            /// Where the gift may ship unless the buyer enters an address: the friend's shipping
            /// address when they are friends and the friend shares it with friends; for a gift
            /// without a recipient, the buyer's own shipping address. Nil otherwise.
            public var shippingAddress: PostalAddress?
            public init(
                itemId: String, title: String, unitPrice: Money, available: Bool, friends: Bool?, buyerName: String?,
                shippingAddress: PostalAddress? = nil
            ) {
                self.itemId = itemId
                self.title = title
                self.unitPrice = unitPrice
                self.available = available
                self.friends = friends
                self.buyerName = buyerName
                self.shippingAddress = shippingAddress
            }
        }
    }
}
