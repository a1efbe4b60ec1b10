import Foundation
import Testing

/// PostcardBuddy's saved postcards over HTTP: gateway, broker, auth, orders and printing as real
/// processes. ETags, `If-None-Match` 304s, `If-Match` 428 and 412 (two devices at once), an order
/// made from a draft, and the images drafts and orders keep alive.
@Suite("drafts over HTTP (real processes)", .serialized)
struct DraftsHTTPTests {
    let orders = OrdersHTTPTests()

    func draft(image: String, greeting: String) -> String {
        """
        {"kind": "postcard", "imageId": "\(image)", "greeting": "\(greeting)", "size": "a6",
         "edits": [{"type": "filter", "name": "sepia"}],
         "recipients": [{"name": "Ann Lund", "address": {"line1": "Storgatan 1", "city": "Lund", "country": "se"}}]}
        """
    }

    @Test(
        "drafts: 201 with ETag, 304 on If-None-Match, PUT without If-Match 428, stale 412, two devices at once one 200 and one 412, another's 404"
    )
    func drafts() async throws {
        let system = try await PrintingHTTPTests().start()
        defer { _ = system.stopBlocking() }
        let anonymous = OrdersHTTPTests.Client(port: system.httpPort, token: nil)
        let (ann, _) = try await orders.signUp(system, "ann")
        let (bob, _) = try await orders.signUp(system, "bob")
        let upload = await ann.send("POST", "/v1/images", json: PrintingHTTPTests.bmp, contentType: "image/bmp")
        let image = try #require(orders.json(upload.body)["id"] as? String, "\(upload.body)")

        #expect(
            await anonymous.send("POST", "/v1/me/postcards", json: draft(image: image, greeting: "Hej")).status == 401)
        let created = await ann.send("POST", "/v1/me/postcards", json: draft(image: image, greeting: "Hej"))
        #expect(created.status == 201, "\(created.body)")
        #expect(created.header("ETag") == "\"r1\"" && orders.json(created.body)["etag"] as? String == "\"r1\"")
        #expect(orders.json(created.body)["size"] as? String == "A6")
        let id = try #require(orders.json(created.body)["id"] as? String)
        let bad = await ann.send("POST", "/v1/me/postcards", json: #"{"kind": "postcard", "size": "A3"}"#)
        #expect(bad.status == 400 && orders.field(bad) == "size", "\(bad.body)")

        let read = await ann.send("GET", "/v1/me/postcards/\(id)")
        #expect(read.status == 200 && read.header("ETag") == "\"r1\"")
        #expect(read.header("Cache-Control") == "private, no-cache")
        let unchanged = await ann.send("GET", "/v1/me/postcards/\(id)", headers: ["If-None-Match": "\"r1\""])
        #expect(unchanged.status == 304 && unchanged.body.isEmpty && unchanged.header("ETag") == "\"r1\"")
        #expect(await bob.send("GET", "/v1/me/postcards/\(id)").status == 404)

        let blind = await ann.send("PUT", "/v1/me/postcards/\(id)", json: draft(image: image, greeting: "Hallo"))
        #expect(blind.status == 428, "\(blind.body)")
        #expect((orders.json(blind.body)["message"] as? String)?.contains("If-Match") == true)
        let saved = await ann.send(
            "PUT", "/v1/me/postcards/\(id)", json: draft(image: image, greeting: "Hallo"),
            headers: ["If-Match": "\"r1\""])
        #expect(saved.status == 200 && saved.header("ETag") == "\"r2\"", "\(saved.body)")
        let stale = await ann.send(
            "PUT", "/v1/me/postcards/\(id)", json: draft(image: image, greeting: "Hi"), headers: ["If-Match": "\"r1\""])
        #expect(stale.status == 412, "\(stale.body)")
        #expect(
            await bob.send(
                "PUT", "/v1/me/postcards/\(id)", json: draft(image: image, greeting: "x"),
                headers: ["If-Match": "\"r2\""]
            ).status == 404)

        // Two devices that both read r2 save at the same moment.
        async let phone = ann.send(
            "PUT", "/v1/me/postcards/\(id)", json: draft(image: image, greeting: "phone"),
            headers: ["If-Match": "\"r2\""])
        async let tablet = ann.send(
            "PUT", "/v1/me/postcards/\(id)", json: draft(image: image, greeting: "tablet"),
            headers: ["If-Match": "\"r2\""])
        let statuses = await [phone.status, tablet.status].sorted()
        #expect(statuses == [200, 412])
        let now = await ann.send("GET", "/v1/me/postcards/\(id)")
        #expect(now.header("ETag") == "\"r3\"")

        let list = await ann.send("GET", "/v1/me/postcards?limit=10")
        #expect(list.status == 200 && (orders.json(list.body)["items"] as? [Any])?.count == 1)
        let tag = try #require(list.header("ETag"))
        #expect(await ann.send("GET", "/v1/me/postcards", headers: ["If-None-Match": tag]).status == 304)
        #expect(await ann.send("GET", "/v1/me/postcards?limit=0").status == 400)
        #expect(await anonymous.send("GET", "/v1/me/postcards").status == 401)

        #expect(await ann.send("DELETE", "/v1/me/postcards/\(id)").status == 428)
        #expect(await ann.send("DELETE", "/v1/me/postcards/\(id)", headers: ["If-Match": "\"r2\""]).status == 412)
        #expect(await bob.send("DELETE", "/v1/me/postcards/\(id)", headers: ["If-Match": "\"r3\""]).status == 404)
        #expect(await ann.send("DELETE", "/v1/me/postcards/\(id)", headers: ["If-Match": "\"r3\""]).status == 204)
        #expect(await ann.send("GET", "/v1/me/postcards/\(id)").status == 404)
    }

    @Test(
        "an order from a draft: built from it, 400 with inline fields too, 404 for another's; its images are kept (409)"
    )
    func orderFromDraft() async throws {
        let system = try await PrintingHTTPTests().start()
        defer { _ = system.stopBlocking() }
        let (ann, _) = try await orders.signUp(system, "ann")
        let (bob, _) = try await orders.signUp(system, "bob")
        let upload = await ann.send("POST", "/v1/images", json: PrintingHTTPTests.bmp, contentType: "image/bmp")
        let image = try #require(orders.json(upload.body)["id"] as? String)
        let spare = try #require(
            orders.json(
                await ann.send("POST", "/v1/images", json: PrintingHTTPTests.bmp, contentType: "image/bmp").body)[
                    "id"] as? String)
        let listed = await ann.send("GET", "/v1/images?limit=1")
        #expect(listed.status == 200 && listed.header("ETag") != nil)
        #expect((orders.json(listed.body)["items"] as? [[String: Any]])?.first?["id"] as? String == spare)
        #expect(orders.json(listed.body)["nextCursor"] is String)
        #expect((orders.json(await bob.send("GET", "/v1/images").body)["items"] as? [Any])?.isEmpty == true)

        let created = await ann.send("POST", "/v1/me/postcards", json: draft(image: image, greeting: "Hej från Lund"))
        let id = try #require(orders.json(created.body)["id"] as? String)
        let inUse = await ann.send("DELETE", "/v1/images/\(image)")
        #expect(inUse.status == 409, "\(inUse.body)")
        #expect((orders.json(inUse.body)["details"] as? [String: Any])?["usedBy"] as? String == "draft")
        #expect(await bob.send("DELETE", "/v1/images/\(spare)").status == 404)
        #expect(await ann.send("DELETE", "/v1/images/\(spare)").status == 204)
        #expect(await ann.send("GET", "/v1/images/\(spare)").status == 404)

        let card = await ann.send(
            "POST", "/v1/payment-methods",
            json: #"{"number": "4242424242424242", "expMonth": 12, "expYear": 2030, "cvc": "123"}"#)
        let cardId = try #require(orders.json(card.body)["id"] as? String)
        func order(_ body: String, by client: OrdersHTTPTests.Client) async -> HTTP.Response {
            await client.send("POST", "/v1/orders", json: body, headers: ["Idempotency-Key": UUID().uuidString])
        }
        let both = await order(
            #"{"kind": "postcard", "currency": "EUR", "paymentMethodId": "\#(cardId)", "draftId": "\#(id)", "postcard": {"size": "A6", "recipients": []}}"#,
            by: ann)
        #expect(both.status == 400 && orders.field(both) == "draftId", "\(both.body)")
        let wrongKind = await order(
            #"{"kind": "ecard", "currency": "EUR", "paymentMethodId": "\#(cardId)", "draftId": "\#(id)"}"#, by: ann)
        #expect(wrongKind.status == 400 && orders.field(wrongKind) == "kind", "\(wrongKind.body)")
        let foreign = await order(
            #"{"kind": "postcard", "currency": "EUR", "paymentMethodId": "\#(cardId)", "draftId": "\#(id)"}"#, by: bob)
        #expect(foreign.status == 404 && orders.field(foreign) == "draftId", "\(foreign.body)")

        let fromDraft =
            #"{"kind": "postcard", "currency": "EUR", "paymentMethodId": "\#(cardId)", "draftId": "\#(id)"}"#
        let key = UUID().uuidString
        let placed = await ann.send("POST", "/v1/orders", json: fromDraft, headers: ["Idempotency-Key": key])
        #expect(placed.status == 201, "\(placed.body)")
        let orderId = try #require(orders.json(placed.body)["id"] as? String)
        let detail = orders.json(await ann.send("GET", "/v1/orders/\(orderId)").body)
        let postcard = detail["postcard"] as? [String: Any]
        #expect(postcard?["greeting"] as? String == "Hej från Lund" && postcard?["imageId"] as? String == image)
        #expect((postcard?["recipients"] as? [[String: Any]])?.first?["name"] as? String == "Ann Lund")
        #expect((postcard?["edits"] as? [[String: Any]])?.first?["name"] as? String == "sepia")

        // With the draft gone at once, the order keeps the image: orders is asked before printing
        // has the order's print job, and printing's own tables once it has.
        #expect(await ann.send("DELETE", "/v1/me/postcards/\(id)", headers: ["If-Match": "*"]).status == 204)
        // A retry under the same key answers the first order, though the draft is gone now.
        let retried = await ann.send("POST", "/v1/orders", json: fromDraft, headers: ["Idempotency-Key": key])
        #expect(retried.status == 201 && orders.json(retried.body)["id"] as? String == orderId, "\(retried.body)")
        let early = await ann.send("DELETE", "/v1/images/\(image)")
        #expect(early.status == 409, "\(early.body)")
        #expect((orders.json(early.body)["details"] as? [String: Any])?["usedBy"] as? String == "order")
        let deadline = Date().addingTimeInterval(30)
        var state = ""
        while Date() < deadline, state != "in_production" {
            state = orders.json(await ann.send("GET", "/v1/orders/\(orderId)").body)["state"] as? String ?? ""
            if state != "in_production" { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(state == "in_production", "\(system.logs())")
        let kept = await ann.send("DELETE", "/v1/images/\(image)")
        #expect(kept.status == 409, "\(kept.body)")
        #expect((orders.json(kept.body)["details"] as? [String: Any])?["usedBy"] as? String == "order")
    }
}
