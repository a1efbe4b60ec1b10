import AuthContract
import CommonContract
import Contract
import Foundation
import OrdersContract
import SocialContract
import SocialService
import Store
import Testing

@Suite("social: the address book (PostgreSQL)")
struct ContactTests {
    static let lund = PostalAddress(line1: "Storgatan 1", city: "Lund", postalCode: "22350", country: "se")

    @Test("add, edit (a field left out stays, empty clears), delete; another user's contact is 404; 400s name the field")
    func crud() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            let bo = try await db.user()
            let added = try await db.call(
                Social.AddContact.self,
                .init(name: " Eva Lind ", address: Self.lund, email: "Eva@Example.org", phone: "+46701234567"), as: ann)
            #expect(added.name == "Eva Lind" && added.address?.country == "SE" && added.email == "eva@example.org")
            #expect(added.cardsSent == 0 && !added.favourite)
            let edited = try await db.call(
                Social.UpdateContact.self, .init(id: added.id, body: .init(phone: "", favourite: true)), as: ann)
            #expect(edited.phone == nil && edited.favourite && edited.email == "eva@example.org")
            #expect(await db.error(Social.UpdateContact.self, .init(id: added.id, body: .init(favourite: false)), as: bo)?.code == .notFound)
            #expect(await db.error(Social.DeleteContact.self, .init(id: added.id), as: bo)?.code == .notFound)
            let cases: [(Social.ContactFields, String)] = [
                (.init(), "name"), (.init(name: ""), "name"), (.init(name: "A", email: "nope"), "email"),
                (.init(name: "A", phone: "0701"), "phone"),
                (.init(name: "A", address: .init(line1: "", city: "Lund", country: "SE")), "address.line1"),
                (.init(name: "A", address: .init(line1: "x", city: "Lund", country: "Sweden")), "address.country"),
            ]
            for (fields, field) in cases {
                #expect(await db.error(Social.AddContact.self, fields, as: ann)?.field == field, "\(field)")
            }
            _ = try await db.call(Social.DeleteContact.self, .init(id: added.id), as: ann)
            #expect(try await db.call(Social.ListContacts.self, .init(), as: ann).items.isEmpty)
        }
    }

    @Test("search by name (similar spellings too), newest first, pages without repeats")
    func searchAndPages() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            for name in ["Eva Lind", "Evert Taube", "Bo Ek", "Cy Berg", "Dan Holm", "Ebba Nord", "Fia Ström"] {
                _ = try await db.call(Social.AddContact.self, .init(name: name), as: ann)
                db.clock.advance(by: 1)
            }
            let eva = try await db.call(Social.ListContacts.self, .init(q: "eva"), as: ann)
            #expect(eva.items.map(\.name) == ["Eva Lind"])
            let typo = try await db.call(Social.ListContacts.self, .init(q: "Evert Taub"), as: ann)
            #expect(typo.items.map(\.name).contains("Evert Taube"))
            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await db.call(Social.ListContacts.self, .init(limit: 3, cursor: cursor), as: ann)
                seen += page.items.map(\.name)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen == ["Fia Ström", "Ebba Nord", "Dan Holm", "Cy Berg", "Bo Ek", "Evert Taube", "Eva Lind"])
        }
    }

    @Test("sort=frequent counts postcards from orders' paid events, each event once, never from the client")
    func frequent() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            let eva = try await db.call(Social.AddContact.self, .init(name: "Eva Lind", address: Self.lund), as: ann)
            let bo = try await db.call(
                Social.AddContact.self,
                .init(name: "Bo Ek", address: .init(line1: "Kungsgatan 2", city: "Malmö", country: "SE")), as: ann)
            _ = try await db.call(Social.AddContact.self, .init(name: "Cy Berg"), as: ann)
            func paid(_ recipients: [PostalRecipient]) throws -> Data {
                try Wire.makeEncoder().encode(
                    Orders.OrderEvent(
                        orderId: UUID().uuidString, userId: ann.uuidString.lowercased(), kind: "postcard", from: nil,
                        state: "paid", at: db.clock.now(), reason: nil, total: .init(amount: 100, currency: "EUR"),
                        postcard: .init(size: "A6", recipients: recipients)))
            }
            let toEva = PostalRecipient(
                name: "eva lind", address: .init(line1: "Storgatan 1 ", city: "LUND", postalCode: "22350", country: "SE"))
            let toBo = PostalRecipient(
                name: "Bo Ek", address: .init(line1: "Kungsgatan 2", city: "Malmö", country: "SE"))
            let twice = StoredEvent(
                seq: 0, xid: 0, id: UUID(), topic: Orders.Topic.paid, producer: "orders", payload: try paid([toEva, toBo]),
                requestId: nil, createdAt: db.clock.now())
            for event in [
                twice, twice,
                StoredEvent(
                    seq: 0, xid: 0, id: UUID(), topic: Orders.Topic.paid, producer: "orders", payload: try paid([toEva]),
                    requestId: nil, createdAt: db.clock.now()),
            ] {
                try await db.apply(event)
            }
            let list = try await db.call(Social.ListContacts.self, .init(sort: .frequent), as: ann)
            #expect(list.items.map(\.name) == ["Eva Lind", "Bo Ek", "Cy Berg"])
            #expect(list.items.map(\.cardsSent) == [2, 1, 0])
            let paged = try await db.call(Social.ListContacts.self, .init(sort: .frequent, limit: 1), as: ann)
            let rest = try await db.call(
                Social.ListContacts.self, .init(sort: .frequent, limit: 5, cursor: paged.nextCursor), as: ann)
            #expect(paged.items.map(\.id) + rest.items.map(\.id) == list.items.map(\.id))
            _ = (eva, bo)
            try await db.deliver(Auth.AccountDeleted.topic, Auth.AccountDeleted(userId: ann.uuidString.lowercased()))
            #expect(try await db.count("SELECT count(*) FROM social.contacts WHERE user_id = \(ann)") == 0)
        }
    }

    @Test("favourites come first unless another order is asked for, and their pages neither repeat nor skip")
    func favouritesFirst() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            for (name, favourite) in [("Ada", true), ("Bo", false), ("Cy", true), ("Dan", false), ("Eva", false)] {
                _ = try await db.call(Social.AddContact.self, .init(name: name, favourite: favourite), as: ann)
                db.clock.advance(by: 1)
            }
            let standard = try await db.call(Social.ListContacts.self, .init(), as: ann)
            #expect(standard.items.map(\.name) == ["Cy", "Ada", "Eva", "Dan", "Bo"])
            let named = try await db.call(Social.ListContacts.self, .init(sort: .favourites), as: ann)
            #expect(named.items.map(\.id) == standard.items.map(\.id))
            let recent = try await db.call(Social.ListContacts.self, .init(sort: .recent), as: ann)
            #expect(recent.items.map(\.name) == ["Eva", "Dan", "Cy", "Bo", "Ada"])
            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await db.call(Social.ListContacts.self, .init(limit: 2, cursor: cursor), as: ann)
                seen += page.items.map(\.name)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen == ["Cy", "Ada", "Eva", "Dan", "Bo"])
            let search = try await db.call(Social.ListContacts.self, .init(q: "a"), as: ann)
            #expect(search.items.map(\.name) == ["Ada", "Eva", "Dan"])
        }
    }

    @Test("every card counts: paid postcards and e-cards, contacts picked or written in by hand, each order once")
    func everyCardCounts() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            let eva = try await db.call(
                Social.AddContact.self, .init(name: "Eva Lind", address: Self.lund, email: "eva@example.org"), as: ann)
            let bo = try await db.call(Social.AddContact.self, .init(name: "Bo Ek", email: "Bo@Example.org"), as: ann)
            let cy = try await db.call(Social.AddContact.self, .init(name: "Cy Berg", favourite: true), as: ann)
            func paid(
                _ orderId: String, postcard: [PostalRecipient] = [], ecard: [Orders.EmailRecipient] = []
            ) throws -> StoredEvent {
                let order = Orders.OrderEvent(
                    orderId: orderId, userId: ann.uuidString.lowercased(), kind: postcard.isEmpty ? "ecard" : "postcard",
                    from: "pending_payment", state: "paid", at: db.clock.now(), reason: nil,
                    total: .init(amount: 100, currency: "EUR"),
                    postcard: postcard.isEmpty ? nil : .init(size: "A6", recipients: postcard),
                    ecard: ecard.isEmpty ? nil : .init(recipients: ecard))
                return StoredEvent(
                    seq: 0, xid: 0, id: UUID(), topic: Orders.Topic.paid, producer: "orders",
                    payload: try Wire.makeEncoder().encode(order), requestId: nil, createdAt: db.clock.now())
            }
            // A hand-written postcard recipient with another name for Eva, at her address.
            let handWritten = PostalRecipient(
                name: "Mormor", address: .init(line1: "storgatan 1", city: "Lund", postalCode: "223 50", country: "SE"))
            let postcardOrder = UUID().uuidString
            let first = try paid(postcardOrder, postcard: [handWritten])
            // The same order's event appended again (another event id) counts nothing more.
            let again = try paid(postcardOrder, postcard: [handWritten])
            let ecards = try paid(
                UUID().uuidString, ecard: [.init(email: "EVA@example.org"), .init(name: "Bo", email: "bo@example.org")])
            for event in [first, again, ecards, ecards] {
                try await db.apply(event)
            }
            let frequent = try await db.call(Social.ListContacts.self, .init(sort: .frequent), as: ann)
            #expect(frequent.items.map(\.id) == [eva.id, bo.id, cy.id])
            #expect(frequent.items.map(\.cardsSent) == [2, 1, 0])
            let standard = try await db.call(Social.ListContacts.self, .init(), as: ann)
            #expect(standard.items.first?.id == cy.id, "the favourite leads the standard listing")
        }
    }
}
