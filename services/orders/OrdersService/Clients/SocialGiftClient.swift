import Contract
import Foundation
import OrdersContract
import ServiceKit
import SocialContract

/// Asks social (`check_gift`, as a service) for a gift's price, availability and friendship
/// before the order's transaction opens; the buyer's own price never counts.
public struct SocialGiftClient: Sendable {
    let bus: BusClient

    /// Asks social through `bus`.
    public init(bus: BusClient) { self.bus = bus }

    /// The gift as it will be bought, and the buyer's name for the recipient's notice. Social's
    /// errors (`not_found` for an unknown item, `unavailable` when it is down) are passed on.
    public func resolve(_ gift: Orders.GiftOrder, buyer: UUID, requestId: String) async throws(ServiceError)
        -> (details: Orders.GiftDetails, buyerName: String?)
    {
        let reply = try await bus.call(
            Social.CheckGift.self,
            .init(buyerId: buyer.uuidString.lowercased(), itemId: gift.itemId, friendUserId: gift.friendUserId),
            metadata: RequestMetadata(requestId: requestId), timeout: .seconds(5))
        let details = try GiftRules.details(
            gift, item: (reply.title, reply.unitPrice, reply.available), friends: reply.friends,
            sharedAddress: reply.shippingAddress)
        return (details, reply.buyerName)
    }
}
