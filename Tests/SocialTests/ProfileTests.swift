import AuthContract
import CommonContract
import Contract
import Foundation
import PostgresNIO
import ServiceKit
import SocialContract
import Testing

/// The profile's billing and shipping addresses and the friends-may-see setting, through social's
/// operation table on real PostgreSQL; and what `check_gift` and `resolve_contacts` tell orders.
@Suite("social: profile addresses, shared shipping address, contacts for orders (PostgreSQL)", .serialized)
struct ProfileTests {
    static let home = PostalAddress(line1: "Storgatan 1", city: "Lund", postalCode: "22350", country: "se")
    static let office = PostalAddress(line1: "Kungsgatan 9", city: "Malmö", country: "SE")

    @Test("addresses: none and not shared until set; a PUT replaces both and the setting; 400 names the field")
    func addresses() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            let empty = try await db.call(Social.GetAddresses.self, Empty(), as: ann)
            #expect(empty == Social.Addresses(), "no addresses, sharing off by default")
            let saved = try await db.call(
                Social.SetAddresses.self,
                .init(billingAddress: Self.office, shippingAddress: Self.home, shareShippingWithFriends: true), as: ann)
            #expect(saved.shippingAddress?.country == "SE", "country upper-cased")
            #expect(try await db.call(Social.GetAddresses.self, Empty(), as: ann) == saved)
            let cleared = try await db.call(Social.SetAddresses.self, .init(shippingAddress: Self.home), as: ann)
            #expect(cleared.billingAddress == nil && !cleared.shareShippingWithFriends)
            #expect(try await db.call(Social.GetAddresses.self, Empty(), as: ann) == cleared)
            // The setting left out of the JSON is off.
            let decoded = try Wire.decodePayload(
                Social.Addresses.self, from: Array(#"{"billingAddress": null}"#.utf8))
            #expect(decoded == Social.Addresses())
            for (addresses, field) in [
                (Social.Addresses(billingAddress: .init(line1: "", city: "Lund", country: "SE")), "billingAddress.line1"),
                (Social.Addresses(shippingAddress: .init(line1: "x", city: "Lund", country: "Sweden")), "shippingAddress.country"),
                (Social.Addresses(shippingAddress: .init(line1: "x", city: " ", country: "SE")), "shippingAddress.city"),
            ] {
                let error = await db.error(Social.SetAddresses.self, addresses, as: ann)
                #expect(error?.code == .invalidArgument && error?.field == field, "\(field)")
            }
            #expect(try await db.call(Social.GetAddresses.self, Empty(), as: ann) == cleared, "a refusal saves nothing")
            #expect(await db.error(Social.GetAddresses.self, Empty(), as: nil)?.code == .unauthenticated)
            // Deleting the account deletes them.
            try await db.deliver(Auth.AccountDeleted.topic, Auth.AccountDeleted(userId: ann.uuidString.lowercased()))
            #expect(try await db.count("SELECT count(*) FROM social.addresses WHERE user_id = \(ann)") == 0)
        }
    }

    @Test("check_gift: a friend's shipping address only when shared and only to a friend; one's own for oneself")
    func sharedShipping() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user(displayName: "Ann")
            let bo = try await db.user()
            let cy = try await db.user()
            _ = try await db.call(Social.SendFriendRequest.self, bo.ref, as: ann)
            _ = try await db.call(Social.AcceptFriendRequest.self, ann.ref, as: bo)
            let item = try #require(try await db.call(Social.SearchCatalog.self, .init(q: "teapot"), as: ann).items.first)
            func check(_ buyer: UUID, for friend: UUID?) async throws -> Social.CheckGift.Reply {
                try await db.call(
                    Social.CheckGift.self,
                    .init(buyerId: buyer.uuidString, itemId: item.id, friendUserId: friend?.uuidString), as: nil)
            }
            _ = try await db.call(Social.SetAddresses.self, .init(shippingAddress: Self.home), as: bo)
            #expect(try await check(ann, for: bo).shippingAddress == nil, "not shared: not given")
            _ = try await db.call(
                Social.SetAddresses.self, .init(shippingAddress: Self.home, shareShippingWithFriends: true), as: bo)
            let shared = try await check(ann, for: bo)
            #expect(shared.friends == true && shared.shippingAddress?.line1 == "Storgatan 1")
            #expect(try await check(cy, for: bo).shippingAddress == nil, "a stranger never gets it")
            _ = try await db.call(Social.SetAddresses.self, .init(shippingAddress: Self.office), as: ann)
            #expect(try await check(ann, for: nil).shippingAddress == Self.office, "a gift to oneself: one's own")
            _ = try await db.call(Social.BlockUser.self, ann.ref, as: bo)
            #expect(try await check(ann, for: bo).shippingAddress == nil, "blocked: no longer friends")
        }
    }

    @Test("resolve_contacts: only the user's own contacts; for services, not for signed-in users")
    func resolveContacts() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            let bo = try await db.user()
            let eva = try await db.call(Social.AddContact.self, .init(name: "Eva", address: Self.home), as: ann)
            let bos = try await db.call(Social.AddContact.self, .init(name: "Max", email: "max@example.org"), as: bo)
            let reply = try await db.call(
                Social.ResolveContacts.self,
                .init(userId: ann.uuidString, contactIds: [eva.id, bos.id, "not-a-uuid", UUID().uuidString]), as: nil)
            #expect(reply.contacts.map(\.id) == [eva.id])
            let asUser = await db.error(
                Social.ResolveContacts.self, .init(userId: bo.uuidString, contactIds: [bos.id]), as: ann)
            #expect(asUser?.code == .permissionDenied)
            let many = await db.error(
                Social.ResolveContacts.self,
                .init(userId: ann.uuidString, contactIds: Array(repeating: eva.id, count: 101)), as: nil)
            #expect(many?.code == .invalidArgument)
        }
    }
}
