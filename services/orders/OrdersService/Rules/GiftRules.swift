import CommonContract
import Contract
import Foundation
import OrdersContract

/// Gift orders: what the buyer may send, and what social's answer allows. The price is
/// always the catalogue's, never the client's.
public enum GiftRules {
    /// The most of one item a gift order may hold.
    public static let maxQuantity = 99

    /// Checks the request's own fields (no price, a quantity, a friend id that is a UUID and not
    /// the buyer, a short message).
    public static func check(_ gift: Orders.GiftOrder, buyer: UUID) throws(ServiceError) {
        if let sent = gift.sentPrice {
            throw .invalidArgument(
                "gift.\(sent) is not accepted: the price is the catalogue's; send itemId and quantity",
                field: "gift.\(sent)")
        }
        guard !gift.itemId.isEmpty, gift.itemId.unicodeScalars.count <= 100 else {
            throw .invalidArgument("gift.itemId is 1 to 100 characters", field: "gift.itemId")
        }
        guard (1...maxQuantity).contains(gift.quantity) else {
            throw .invalidArgument("gift.quantity is 1 to \(maxQuantity)", field: "gift.quantity")
        }
        if let friend = gift.friendUserId {
            guard let id = UUID(uuidString: friend) else {
                throw .invalidArgument("gift.friendUserId is a user id (a UUID)", field: "gift.friendUserId")
            }
            guard id != buyer else {
                throw .invalidArgument("gift.friendUserId is yourself; leave it out", field: "gift.friendUserId")
            }
        }
        if let message = gift.message, message.unicodeScalars.count > 500 {
            throw .invalidArgument("gift.message is at most 500 characters", field: "gift.message")
        }
    }

    /// The gift as it will be bought, from social's answer: `failed_precondition` (422) when the
    /// item cannot be bought now, `permission_denied` (403) when the recipient is not the
    /// buyer's friend. It ships to the address the buyer entered, else to `sharedAddress` (the
    /// friend's shipping address when the friend shares it with friends, or the buyer's own for a
    /// gift to themselves), else nowhere yet.
    public static func details(
        _ gift: Orders.GiftOrder, item: (title: String, unitPrice: Money, available: Bool), friends: Bool?,
        sharedAddress: PostalAddress? = nil
    ) throws(ServiceError) -> Orders.GiftDetails {
        guard item.available else {
            throw ServiceError(
                .failedPrecondition, "this item is not available now", details: ["field": "gift.itemId"])
        }
        if gift.friendUserId != nil, friends != true {
            throw ServiceError(
                .permissionDenied, "you can send gifts only to your friends", details: ["field": "gift.friendUserId"])
        }
        return Orders.GiftDetails(
            item: Orders.GiftItem(id: gift.itemId, title: item.title, unitPrice: item.unitPrice, quantity: gift.quantity),
            recipientKind: gift.friendUserId == nil ? "self" : "friend", friendUserId: gift.friendUserId?.lowercased(),
            message: gift.message, shippingAddress: gift.shippingAddress ?? sharedAddress)
    }
}
