import Foundation
import Testing

/// Gifter's people, catalogue and gift purchases through HTTP: gateway, broker, auth, social and
/// orders as real processes. Registrations reach social's directory through auth's events.
@Suite("social over HTTP (real processes)", .serialized)
struct SocialHTTPTests {
    typealias Client = OrdersHTTPTests.Client

    func start(gateway: [String: String] = [:]) async throws -> SystemHarness {
        let system = try SystemHarness()
        try system.start("broker")
        try system.start("auth")
        try system.start("social", extra: ["EVENTS_POLL_MS": "200"])
        try system.start("orders")
        try system.start(
            "gateway", extra: ["READINESS_SERVICES": "auth,social,orders"].merging(gateway) { $1 })
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        try #require(await system.get("/readyz")?.status == 200, "\(system.logs())")
        return system
    }

    let orders = OrdersHTTPTests()

    func json(_ body: String) -> [String: Any] { orders.json(body) }

    /// A signed-in user and their id.
    func user(_ system: SystemHarness, _ name: String) async throws -> (Client, String) {
        let (client, _) = try await orders.signUp(system, name)
        let me = await client.send("GET", "/v1/me")
        return (client, try #require(json(me.body)["userId"] as? String))
    }

    /// Sends a friend request once social's directory knows the addressee (its events arrive
    /// shortly after the registration).
    func request(_ from: Client, to userId: String) async throws -> HTTP.Response {
        let deadline = Date().addingTimeInterval(20)
        var reply = await from.send("POST", "/v1/me/friend-requests", json: #"{"userId": "\#(userId)"}"#)
        while reply.status == 404, Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
            reply = await from.send("POST", "/v1/me/friend-requests", json: #"{"userId": "\#(userId)"}"#)
        }
        return reply
    }

    @Test("friend requests, friends and blocks over HTTP; every endpoint's statuses as documented")
    func friends() async throws {
        let system = try await start()
        defer { _ = system.stopBlocking() }
        let (ann, annId) = try await user(system, "ann")
        let (bo, boId) = try await user(system, "bo")
        let (cy, cyId) = try await user(system, "cy")
        let sent = try await request(ann, to: boId)
        #expect(sent.status == 200 && json(sent.body)["relation"] as? String == "requested", "\(sent.body)")
        let incoming = await bo.send("GET", "/v1/me/friend-requests?direction=incoming")
        let items = json(incoming.body)["items"] as? [[String: Any]] ?? []
        #expect(items.count == 1)
        #expect((items.first?["user"] as? [String: Any])?["userId"] as? String == annId)
        #expect((items.first?["user"] as? [String: Any])?["email"] == nil)
        // Without a direction, the caller's incoming requests.
        #expect((json(await bo.send("GET", "/v1/me/friend-requests").body)["items"] as? [Any])?.count == 1)
        #expect((json(await ann.send("GET", "/v1/me/friend-requests").body)["items"] as? [Any])?.isEmpty == true)
        let outgoing = await ann.send("GET", "/v1/me/friend-requests?direction=outgoing&limit=10")
        #expect((json(outgoing.body)["items"] as? [Any])?.count == 1)
        let accepted = await bo.send("POST", "/v1/me/friend-requests/\(annId)/accept")
        #expect(accepted.status == 200 && json(accepted.body)["relation"] as? String == "friends")
        let list = await ann.send("GET", "/v1/me/friends")
        #expect(((json(list.body)["items"] as? [[String: Any]])?.first?["user"] as? [String: Any])?["userId"] as? String == boId)
        #expect(await ann.send("DELETE", "/v1/me/friends/\(boId)").status == 204)
        #expect(await ann.send("DELETE", "/v1/me/friends/\(boId)").status == 404)
        // Cancel and decline.
        _ = try await request(cy, to: annId)
        #expect(await cy.send("DELETE", "/v1/me/friend-requests/\(annId)").status == 204)
        #expect(await cy.send("DELETE", "/v1/me/friend-requests/\(annId)").status == 404)
        _ = try await request(cy, to: annId)
        #expect(await ann.send("POST", "/v1/me/friend-requests/\(cyId)/decline").status == 204)
        #expect(await ann.send("POST", "/v1/me/friend-requests/\(cyId)/accept").status == 404)
        // Blocks hide both ways.
        #expect(await ann.send("POST", "/v1/me/blocks", json: #"{"userId": "\#(cyId)"}"#).status == 204)
        #expect(await cy.send("POST", "/v1/me/friend-requests", json: #"{"userId": "\#(annId)"}"#).status == 404)
        #expect(await ann.send("DELETE", "/v1/me/blocks/\(cyId)").status == 204)
        #expect(await ann.send("DELETE", "/v1/me/blocks/\(cyId)").status == 404)
        // Bad input names the field; no token is 401.
        let bad = await ann.send("POST", "/v1/me/friend-requests", json: #"{"userId": "\#(annId)"}"#)
        #expect(bad.status == 400 && orders.field(bad) == "userId")
        #expect(await ann.send("GET", "/v1/me/friends?limit=0").status == 400)
        #expect(await Client(port: system.httpPort, token: nil).send("GET", "/v1/me/friends").status == 401)
    }

    @Test("catalogue search and items; gift orders charged the catalogue's price, price tampering 400, stranger 403")
    func catalogueAndGifts() async throws {
        let system = try await start()
        defer { _ = system.stopBlocking() }
        let (ann, annId) = try await user(system, "ann")
        let (bo, boId) = try await user(system, "bo")
        let (cy, cyId) = try await user(system, "cy")
        _ = try await request(ann, to: boId)
        #expect(await bo.send("POST", "/v1/me/friend-requests/\(annId)/accept").status == 200)

        let search = await ann.send("GET", "/v1/catalog/items?q=wireless%20headphnes&limit=5")
        #expect(search.status == 200)
        let found = json(search.body)["items"] as? [[String: Any]] ?? []
        #expect(found.count == 5 && found.allSatisfy { ($0["title"] as? String)?.contains("Headphones") == true })
        let filtered = await ann.send("GET", "/v1/catalog/items?category=kitchen&minPrice=1000&maxPrice=2000&limit=50")
        let kitchen = json(filtered.body)["items"] as? [[String: Any]] ?? []
        #expect(kitchen.count == 50 && json(filtered.body)["nextCursor"] is String)
        #expect(kitchen.allSatisfy { $0["category"] as? String == "kitchen" })
        #expect(await ann.send("GET", "/v1/catalog/items?minPrice=-1").status == 400)
        let item = try #require(found.first { $0["available"] as? Bool == true })
        let itemId = try #require(item["id"] as? String)
        let price = try #require((item["price"] as? [String: Any])?["amount"] as? Int)
        let one = await ann.send("GET", "/v1/catalog/items/\(itemId)")
        #expect(one.status == 200 && json(one.body)["title"] as? String == item["title"] as? String)
        #expect(await ann.send("GET", "/v1/catalog/items/\(UUID().uuidString)").status == 404)

        // Bo's wish list: Ann (a friend) sees it, Cy does not.
        let added = await bo.send("POST", "/v1/me/favourites", json: #"{"itemId": "\#(itemId)", "note": "blue"}"#)
        #expect(added.status == 201 && json(added.body)["note"] as? String == "blue", "\(added.body)")
        #expect(await bo.send("POST", "/v1/me/favourites", json: #"{"itemId": "\#(itemId)"}"#).status == 200)
        #expect(await bo.send("POST", "/v1/me/favourites", json: #"{"itemId": "nope"}"#).status == 404)
        let mine = await bo.send("GET", "/v1/me/favourites?limit=10")
        #expect((json(mine.body)["items"] as? [[String: Any]])?.first?["itemId"] as? String == itemId)
        let theirs = await ann.send("GET", "/v1/users/\(boId)/favourites")
        #expect(theirs.status == 200 && (json(theirs.body)["items"] as? [Any])?.count == 1)
        #expect(await cy.send("GET", "/v1/users/\(boId)/favourites").status == 404)

        let card = await ann.send(
            "POST", "/v1/payment-methods",
            json: #"{"number": "4242424242424242", "expMonth": 12, "expYear": 2030, "cvc": "123"}"#)
        let cardId = try #require(json(card.body)["id"] as? String, "\(card.body)")
        func gift(_ members: String) async -> HTTP.Response {
            await ann.send(
                "POST", "/v1/orders",
                json: #"{"kind": "gift", "currency": "EUR", "paymentMethodId": "\#(cardId)", "gift": {\#(members)}}"#,
                headers: ["Idempotency-Key": UUID().uuidString])
        }
        let tampered = await gift(
            #""itemId": "\#(itemId)", "quantity": 1, "friendUserId": "\#(boId)", "unitPrice": {"amount": 1, "currency": "EUR"}"#)
        #expect(tampered.status == 400, "\(tampered.body)")
        let stranger = await gift(#""itemId": "\#(itemId)", "quantity": 1, "friendUserId": "\#(cyId)""#)
        #expect(stranger.status == 403, "\(stranger.body)")
        let placed = await gift(#""itemId": "\#(itemId)", "quantity": 2, "friendUserId": "\#(boId)""#)
        #expect(placed.status == 201, "\(placed.body)")
        #expect((json(placed.body)["total"] as? [String: Any])?["amount"] as? Int == price * 2)
        let history = await ann.send("GET", "/v1/orders")
        #expect((json(history.body)["items"] as? [Any])?.count == 1)
        #expect(await bo.send("DELETE", "/v1/me/favourites/\(itemId)").status == 204)
        #expect(await bo.send("DELETE", "/v1/me/favourites/\(itemId)").status == 404)
    }

    @Test("the directory over HTTP: by name and by whole e-mail only, privacy settings, and 429 with Retry-After")
    func directory() async throws {
        let system = try await start(gateway: ["RATE_LIMIT_SEARCH": "600/min,burst=12"])
        defer { _ = system.stopBlocking() }
        let (ann, _) = try await user(system, "ann")
        let (bo, boId) = try await user(system, "bo")
        let boName = try #require(json(await bo.send("GET", "/v1/me").body)["username"] as? String)
        // Once social has bo (auth's event), the whole address finds bo; a prefix never does.
        var hits: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(20)
        while hits.isEmpty, Date() < deadline {
            let reply = await ann.send("GET", "/v1/users?q=\(boName)")
            hits = json(reply.body)["items"] as? [[String: Any]] ?? []
            if hits.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(hits.map { $0["userId"] as? String } == [boId])
        #expect(hits.first?["relation"] as? String == "none" && hits.first?["email"] == nil)
        let prefix = String(boName.prefix(while: { $0 != "@" })) + "@"
        let partial = await ann.send("GET", "/v1/users?q=\(prefix.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        #expect(partial.status == 200 && (json(partial.body)["items"] as? [Any])?.isEmpty == true)
        #expect(await bo.send("GET", "/v1/me/privacy").status == 200)
        let off = await bo.send("PUT", "/v1/me/privacy", json: #"{"findableByContact": false, "findableByName": true}"#)
        #expect(off.status == 200 && json(off.body)["findableByContact"] as? Bool == false)
        let hidden = await ann.send("GET", "/v1/users?q=\(boName)")
        #expect((json(hidden.body)["items"] as? [Any])?.isEmpty == true)
        #expect(await ann.send("GET", "/v1/users?q=").status == 400)
        // Searching on and on is cut off per caller.
        var limited: HTTP.Response?
        for _ in 0..<30 {
            let reply = await ann.send("GET", "/v1/users?q=someone")
            if reply.status == 429 {
                limited = reply
                break
            }
        }
        let cut = try #require(limited)
        #expect(cut.head.lowercased().contains("retry-after"))
    }

    @Test("the address book over HTTP: add, search, edit, delete; 400 names the field; another user's contact is 404")
    func contacts() async throws {
        let system = try await start()
        defer { _ = system.stopBlocking() }
        let (ann, _) = try await user(system, "ann")
        let (bo, _) = try await user(system, "bo")
        let added = await ann.send(
            "POST", "/v1/me/contacts",
            json: #"{"name": "Eva Lind", "address": {"line1": "Storgatan 1", "city": "Lund", "country": "se"}, "phone": "+46701234567"}"#)
        #expect(added.status == 201, "\(added.body)")
        let id = try #require(json(added.body)["id"] as? String)
        #expect((json(added.body)["address"] as? [String: Any])?["country"] as? String == "SE")
        #expect(json(added.body)["cardsSent"] as? Int == 0)
        let bad = await ann.send("POST", "/v1/me/contacts", json: #"{"name": "X", "email": "nope"}"#)
        #expect(bad.status == 400 && orders.field(bad) == "email")
        let found = await ann.send("GET", "/v1/me/contacts?q=eva&sort=frequent")
        #expect((json(found.body)["items"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
        let edited = await ann.send("PATCH", "/v1/me/contacts/\(id)", json: #"{"favourite": true, "phone": ""}"#)
        #expect(edited.status == 200 && json(edited.body)["favourite"] as? Bool == true && json(edited.body)["phone"] == nil)
        // A field of the wrong type is social's 400 naming it; the id is the path's, never the body's.
        let wrongType = await ann.send("PATCH", "/v1/me/contacts/\(id)", json: #"{"favourite": "yes"}"#)
        #expect(wrongType.status == 400 && orders.field(wrongType) == "favourite")
        let clash = await ann.send("PATCH", "/v1/me/contacts/\(id)", json: #"{"id": "\#(id)", "name": "Eva"}"#)
        #expect(clash.status == 400 && orders.field(clash) == "id")
        #expect(await bo.send("PATCH", "/v1/me/contacts/\(id)", json: #"{"favourite": false}"#).status == 404)
        #expect(await bo.send("DELETE", "/v1/me/contacts/\(id)").status == 404)
        #expect(await ann.send("DELETE", "/v1/me/contacts/\(id)").status == 204)
        #expect((json(await ann.send("GET", "/v1/me/contacts").body)["items"] as? [Any])?.isEmpty == true)
    }

    @Test("the address book lists favourites first; sort=frequent counts every card: paid postcards, e-cards, recipients written in by hand")
    func cardsSentAndFavourites() async throws {
        let system = try await start()
        defer { _ = system.stopBlocking() }
        let (ann, _) = try await user(system, "ann")
        func add(_ body: String) async throws -> String {
            let added = await ann.send("POST", "/v1/me/contacts", json: body)
            #expect(added.status == 201, "\(added.body)")
            return try #require(json(added.body)["id"] as? String)
        }
        let eva = try await add(
            #"{"name": "Eva Lind", "favourite": true, "email": "eva@example.org", "address": {"line1": "Storgatan 1", "city": "Lund", "postalCode": "22350", "country": "SE"}}"#)
        let bo = try await add(#"{"name": "Bo Ek", "email": "bo@example.org"}"#)
        let cy = try await add(
            #"{"name": "Cy Berg", "favourite": true, "address": {"line1": "Kungsgatan 2", "city": "Malmö", "country": "SE"}}"#)
        let dan = try await add(#"{"name": "Dan Holm"}"#)
        let card = await ann.send(
            "POST", "/v1/payment-methods",
            json: #"{"number": "4242424242424242", "expMonth": 12, "expYear": 2030, "cvc": "123"}"#)
        let cardId = try #require(json(card.body)["id"] as? String)
        func place(_ body: String) async {
            let placed = await ann.send("POST", "/v1/orders", json: body, headers: ["Idempotency-Key": UUID().uuidString])
            #expect(placed.status == 201, "\(placed.body)")
        }
        // A paid postcard to Eva from the address book, and to Cy written in by hand (another
        // spelling of the name and address).
        await place(
            #"{"kind": "postcard", "currency": "EUR", "paymentMethodId": "\#(cardId)", "postcard": {"size": "A6", "contactIds": ["\#(eva)"], "recipients": [{"name": "C. Berg", "address": {"line1": "kungsgatan  2", "city": "MALMÖ", "country": "se"}}]}}"#)
        // An e-card to Bo from the address book, and to Eva's e-mail address written in by hand.
        await place(
            #"{"kind": "ecard", "currency": "EUR", "paymentMethodId": "\#(cardId)", "ecard": {"contactIds": ["\#(bo)"], "recipients": [{"email": "Eva@Example.org"}]}}"#)
        // An e-card written in by hand to Eva and Bo.
        await place(
            #"{"kind": "ecard", "currency": "EUR", "paymentMethodId": "\#(cardId)", "ecard": {"recipients": [{"name": "Eva", "email": "eva@example.org"}, {"email": "bo@example.org"}]}}"#)
        // social counts from orders' paid events, shortly after each order.
        var frequent: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(30)
        repeat {
            try await Task.sleep(for: .milliseconds(200))
            frequent = json(await ann.send("GET", "/v1/me/contacts?sort=frequent").body)["items"] as? [[String: Any]] ?? []
        } while Date() < deadline && frequent.compactMap { $0["cardsSent"] as? Int }.reduce(0, +) < 6
        #expect(frequent.map { $0["id"] as? String } == [eva, bo, cy, dan], "\(frequent)")
        #expect(frequent.map { $0["cardsSent"] as? Int } == [3, 2, 1, 0], "\(frequent)")
        // The standard listing: favourites first (newest first), then the rest (newest first).
        let standard = json(await ann.send("GET", "/v1/me/contacts").body)["items"] as? [[String: Any]] ?? []
        #expect(standard.map { $0["id"] as? String } == [cy, eva, dan, bo], "\(standard)")
        let recent = json(await ann.send("GET", "/v1/me/contacts?sort=recent").body)["items"] as? [[String: Any]] ?? []
        #expect(recent.map { $0["id"] as? String } == [dan, cy, bo, eva])
        let page = await ann.send("GET", "/v1/me/contacts?sort=favourites&limit=1")
        let next = try #require(json(page.body)["nextCursor"] as? String)
        let rest = json(await ann.send("GET", "/v1/me/contacts?sort=favourites&cursor=\(next)").body)["items"] as? [[String: Any]]
        #expect(json(page.body)["items"].flatMap { $0 as? [[String: Any]] }?.map { $0["id"] as? String } == [cy])
        #expect(rest?.map { $0["id"] as? String } == [eva, dan, bo])
        #expect(await ann.send("GET", "/v1/me/contacts?sort=alphabetical").status == 400)
        // Counting settles: nothing more arrives for orders already counted.
        try await Task.sleep(for: .seconds(1))
        let settled = json(await ann.send("GET", "/v1/me/contacts?sort=frequent").body)["items"] as? [[String: Any]] ?? []
        #expect(settled.map { $0["cardsSent"] as? Int } == [3, 2, 1, 0])
    }

    @Test("the profile over HTTP: username change (400, 409), billing and shipping addresses, a gift shipped to a friend's shared address, contactIds in orders")
    func profile() async throws {
        let system = try await start()
        defer { _ = system.stopBlocking() }
        let (ann, annId) = try await user(system, "ann")
        let (bo, boId) = try await user(system, "bo")
        let boName = try #require(json(await bo.send("GET", "/v1/me").body)["username"] as? String)
        // Username: the rules, 409 when taken; e-mail and display name still change alongside.
        let fresh = "ann_\(UUID().uuidString.prefix(8).lowercased())"
        let renamed = await ann.send("PATCH", "/v1/me", json: #"{"username": "\#(fresh)", "displayName": "Ann"}"#)
        #expect(renamed.status == 200 && json(renamed.body)["username"] as? String == fresh, "\(renamed.body)")
        #expect(json(renamed.body)["displayName"] as? String == "Ann")
        let taken = await ann.send("PATCH", "/v1/me", json: #"{"username": "\#(boName)"}"#)
        #expect(taken.status == 409 && orders.field(taken) == "username", "\(taken.body)")
        let bad = await ann.send("PATCH", "/v1/me", json: #"{"username": "no spaces allowed"}"#)
        #expect(bad.status == 400 && orders.field(bad) == "username")
        let email = await ann.send("PATCH", "/v1/me", json: #"{"email": "ann@example.org"}"#)
        #expect(email.status == 200 && json(email.body)["username"] as? String == fresh)
        // Addresses: none until set; a PUT replaces; 400 names the field; 401 without a token.
        let none = await bo.send("GET", "/v1/me/addresses")
        #expect(none.status == 200 && json(none.body)["shareShippingWithFriends"] as? Bool == false, "\(none.body)")
        let home = #"{"line1": "Storgatan 1", "city": "Lund", "postalCode": "22350", "country": "se"}"#
        let put = await bo.send(
            "PUT", "/v1/me/addresses",
            json: #"{"billingAddress": \#(home), "shippingAddress": \#(home), "shareShippingWithFriends": true}"#)
        #expect(put.status == 200 && (json(put.body)["shippingAddress"] as? [String: Any])?["country"] as? String == "SE")
        let wrong = await bo.send("PUT", "/v1/me/addresses", json: #"{"billingAddress": {"line1": "x", "city": "y", "country": "Sweden"}}"#)
        #expect(wrong.status == 400 && orders.field(wrong) == "billingAddress.country", "\(wrong.body)")
        #expect(await Client(port: system.httpPort, token: nil).send("GET", "/v1/me/addresses").status == 401)
        // A gift for Bo, who shares: shipped to Bo's address without Ann entering it.
        _ = try await request(ann, to: boId)
        #expect(await bo.send("POST", "/v1/me/friend-requests/\(annId)/accept").status == 200)
        let search = await ann.send("GET", "/v1/catalog/items?q=teapot&limit=20")
        let item = try #require((json(search.body)["items"] as? [[String: Any]])?.first { $0["available"] as? Bool == true })
        let itemId = try #require(item["id"] as? String)
        let card = await ann.send(
            "POST", "/v1/payment-methods",
            json: #"{"number": "4242424242424242", "expMonth": 12, "expYear": 2030, "cvc": "123"}"#)
        let cardId = try #require(json(card.body)["id"] as? String)
        let gift = await ann.send(
            "POST", "/v1/orders",
            json: #"{"kind": "gift", "currency": "EUR", "paymentMethodId": "\#(cardId)", "gift": {"itemId": "\#(itemId)", "quantity": 1, "friendUserId": "\#(boId)"}}"#,
            headers: ["Idempotency-Key": UUID().uuidString])
        #expect(gift.status == 201, "\(gift.body)")
        let giftId = try #require(json(gift.body)["id"] as? String)
        let shown = await ann.send("GET", "/v1/orders/\(giftId)")
        let shipped = ((json(shown.body)["gift"] as? [String: Any])?["shippingAddress"] as? [String: Any])
        #expect(shipped?["line1"] as? String == "Storgatan 1", "\(shown.body)")
        // contactIds: a postcard to a contact of Ann's; Bo's contact is 404 naming the field.
        let eva = await ann.send("POST", "/v1/me/contacts", json: #"{"name": "Eva Lind", "address": \#(home)}"#)
        let evaId = try #require(json(eva.body)["id"] as? String)
        let bos = await bo.send("POST", "/v1/me/contacts", json: #"{"name": "Max", "address": \#(home)}"#)
        let bosId = try #require(json(bos.body)["id"] as? String)
        func postcard(_ ids: [String]) async -> HTTP.Response {
            let list = ids.map { "\"\($0)\"" }.joined(separator: ", ")
            return await ann.send(
                "POST", "/v1/orders",
                json: #"{"kind": "postcard", "currency": "EUR", "paymentMethodId": "\#(cardId)", "postcard": {"size": "A6", "contactIds": [\#(list)]}}"#,
                headers: ["Idempotency-Key": UUID().uuidString])
        }
        let sent = await postcard([evaId])
        #expect(sent.status == 201, "\(sent.body)")
        let sentId = try #require(json(sent.body)["id"] as? String)
        let detail = json(await ann.send("GET", "/v1/orders/\(sentId)").body)
        let recipients = (detail["postcard"] as? [String: Any])?["recipients"] as? [[String: Any]]
        #expect(recipients?.map { $0["name"] as? String } == ["Eva Lind"])
        let foreign = await postcard([bosId])
        #expect(foreign.status == 404 && orders.field(foreign) == "postcard.contactIds[0]", "\(foreign.body)")
    }
}
