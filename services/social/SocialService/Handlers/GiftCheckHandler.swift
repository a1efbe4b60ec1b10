import CommonContract
import Contract
import Foundation
import ServiceKit
import SocialContract

/// What orders asks before it charges a gift: the item's price and availability now, and
/// whether the buyer and the recipient are friends. Only other services (no actor) and admins
/// may ask: a client could otherwise probe friendships of others.
public struct GiftCheckHandler: Sendable {
    let provider: any CatalogProvider
    let friends: FriendStore
    let people: PeopleStore
    let addresses: AddressStore

    public init(provider: any CatalogProvider, friends: FriendStore, people: PeopleStore, addresses: AddressStore) {
        self.provider = provider
        self.friends = friends
        self.people = people
        self.addresses = addresses
    }

    /// `check_gift`.
    public func check(_ request: Social.CheckGift.Request, _ context: OperationContext) async throws
        -> Social.CheckGift.Reply
    {
        if context.metadata.actor != nil { _ = try context.requireRole(.admin) }
        guard let buyer = UUID(uuidString: request.buyerId) else {
            throw ServiceError.invalidArgument("buyerId must be a UUID", field: "buyerId")
        }
        guard let item = try await provider.item(request.itemId) else {
            throw ServiceError(.notFound, "no catalogue item \(request.itemId)", details: ["field": "gift.itemId"])
        }
        var friendsNow: Bool?
        var shipTo: PostalAddress?
        if let friend = request.friendUserId {
            guard let friendId = UUID(uuidString: friend) else {
                throw ServiceError.invalidArgument("friendUserId must be a UUID", field: "gift.friendUserId")
            }
            friendsNow = try await friends.areFriends(buyer, friendId)
            // The friend's address only to a friend, and only when the friend shares it.
            if friendsNow == true { shipTo = try await addresses.shipping(of: friendId, own: false) }
        } else {
            shipTo = try await addresses.shipping(of: buyer, own: true)
        }
        return .init(
            itemId: item.id, title: item.title, unitPrice: item.price, available: item.available,
            friends: friendsNow, buyerName: friendsNow == true ? try await people.name(of: buyer) : nil,
            shippingAddress: shipTo)
    }
}
