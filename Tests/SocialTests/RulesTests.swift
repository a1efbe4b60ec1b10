import AuthContract
import CommonContract
import Contract
import Foundation
import OrdersContract
import OrdersService
import SocialContract
import SocialService
import Testing

@Suite("social: rules (no I/O)")
struct RulesTests {
    @Test("sending a request: new, repeated, crossing, already friends, hidden by a block")
    func friendRequestRule() {
        #expect(FriendRequestRule.onSend(PairState()) == .newRequest)
        #expect(FriendRequestRule.onSend(PairState(requested: true)) == .alreadyRequested)
        #expect(FriendRequestRule.onSend(PairState(incoming: true)) == .acceptTheirs)
        #expect(FriendRequestRule.onSend(PairState(friends: true)) == .alreadyFriends)
        #expect(FriendRequestRule.onSend(PairState(blocked: true, friends: true, incoming: true)) == .hidden)
    }

    @Test("the directory keeps digests of addresses, and never searches an e-mail username by name")
    func directoryEntry() throws {
        let id = UUID().uuidString
        let plain = try #require(
            DirectoryEntry(.init(userId: id, username: "ann_l", displayName: "Ann Lund", email: "Ann@X.se", phone: nil)))
        #expect(plain.nameText == "ann lund ann_l")
        #expect(plain.emailDigests == [DirectoryEntry.emailDigest("ann@x.se")])
        let mail = try #require(
            DirectoryEntry(.init(userId: id, username: "bo@y.org", displayName: nil, email: nil, phone: "+46701234567")))
        #expect(mail.nameText.isEmpty)
        #expect(mail.emailDigests == [DirectoryEntry.emailDigest("bo@y.org")])
        #expect(mail.phoneDigest == DirectoryEntry.phoneDigest("+46701234567"))
        #expect(DirectoryEntry(.init(userId: "x", username: "a", displayName: nil, email: nil, phone: nil)) == nil)
        #expect(DirectoryEntry.looksLikeEmail("a@b.c") && !DirectoryEntry.looksLikeEmail("ab.c"))
        #expect(DirectoryEntry.looksLikePhone("+46701234567") && !DirectoryEntry.looksLikePhone("46701234567"))
    }

    @Test("directory: text of 4 characters or more also finds similar names; shorter text, addresses and numbers do not")
    func similarNames() throws {
        #expect(try DirectoryQuery("anna").matchesSimilarNames)
        #expect(try DirectoryQuery(" Lindqvvist ").matchesSimilarNames)
        for short in ["a", "li", "ann", " an "] { #expect(try !DirectoryQuery(short).matchesSimilarNames, "\(short)") }
        #expect(try !DirectoryQuery("anna@example.org").matchesSimilarNames)
        #expect(try !DirectoryQuery("+46701234567").matchesSimilarNames)
        #expect(try !DirectoryQuery("anna@").matchesSimilarNames)
    }

    @Test("catalogue queries: text trimmed, empty text lists everything")
    func catalogQuery() throws {
        let query = try CatalogQuery(.init(q: "  mug  ", category: "kitchen", minPrice: 0, maxPrice: 0))
        #expect(query.text == "mug" && query.limit == 20 && query.minPrice == 0)
        #expect(try CatalogQuery(.init(q: "   ")).text == nil)
        // Lengths count Unicode scalars, as the OpenAPI document's maxLength does: 150 letters
        // each with a combining mark are 150 characters but 300 scalars.
        let zalgo = String(repeating: "o\u{0301}", count: 150)
        #expect(zalgo.count == 150)
        #expect(throws: ServiceError.self) { try CatalogQuery(.init(q: zalgo)) }
        #expect(throws: ServiceError.self) { try DirectoryQuery(String(repeating: "o\u{0301}", count: 60)) }
    }

    @Test("a gift order that carries a price is refused, naming the field; quantity and friend id are checked")
    func giftRequest() throws {
        let buyer = UUID()
        let body = #"{"itemId": "i", "quantity": 1, "unitPrice": {"amount": 1, "currency": "EUR"}}"#
        let tampered = try Wire.makeDecoder().decode(Orders.GiftOrder.self, from: Data(body.utf8))
        #expect(tampered.sentPrice == "unitPrice")
        func field(_ gift: Orders.GiftOrder) -> String? {
            do {
                try GiftRules.check(gift, buyer: buyer)
                return nil
            } catch {
                guard case .string(let field) = error.details?["field"] else { return "?" }
                return field
            }
        }
        #expect(field(tampered) == "gift.unitPrice")
        let snapshot = #"{"itemId": "i", "quantity": 1, "item": {"id": "i"}}"#
        #expect(field(try Wire.makeDecoder().decode(Orders.GiftOrder.self, from: Data(snapshot.utf8))) == "gift.item")
        #expect(field(.init(itemId: "i", quantity: 0)) == "gift.quantity")
        #expect(field(.init(itemId: "i", quantity: 100)) == "gift.quantity")
        #expect(field(.init(itemId: "i", quantity: 1, friendUserId: "bo")) == "gift.friendUserId")
        #expect(field(.init(itemId: "i", quantity: 1, friendUserId: buyer.uuidString)) == "gift.friendUserId")
        #expect(field(.init(itemId: "i", quantity: 99, friendUserId: UUID().uuidString)) == nil)
        // The request's JSON never carries the member it refused.
        let encoded = String(decoding: try Wire.makeEncoder().encode(tampered), as: UTF8.self)
        #expect(!encoded.contains("unitPrice"))
    }

    @Test("social's answer: unavailable is 422, not friends is 403, else the catalogue's price")
    func giftDetails() throws {
        let friend = UUID().uuidString
        let gift = Orders.GiftOrder(itemId: "i", quantity: 2, friendUserId: friend)
        let price = Money(amount: 1234, currency: "EUR")
        #expect(throws: ServiceError.self) { try GiftRules.details(gift, item: ("Mug", price, false), friends: true) }
        do {
            _ = try GiftRules.details(gift, item: ("Mug", price, false), friends: true)
        } catch { #expect(error.code == .failedPrecondition) }
        do {
            _ = try GiftRules.details(gift, item: ("Mug", price, true), friends: false)
        } catch { #expect(error.code == .permissionDenied) }
        let details = try GiftRules.details(gift, item: ("Mug", price, true), friends: true)
        #expect(details.item.unitPrice == price && details.item.quantity == 2 && details.recipientKind == "friend")
        let forSelf = try GiftRules.details(.init(itemId: "i", quantity: 1), item: ("Mug", price, true), friends: nil)
        #expect(forSelf.recipientKind == "self")
    }
}
