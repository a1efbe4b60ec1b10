import Foundation
import Logging
import PostgresNIO
import Testing

/// Postage through HTTP: gateway, broker, auth, orders and printing as real processes.
@Suite("printing over HTTP (real processes)", .serialized)
struct PrintingHTTPTests {
    let orders = OrdersHTTPTests()

    /// Broker, auth, orders, printing and gateway as processes, ready, on a database of their own.
    func start() async throws -> SystemHarness {
        let system = try SystemHarness(ownDatabase: true)
        try system.start("broker")
        try system.start("auth")
        try system.start("orders")
        try system.start("printing", extra: ["DATA_DIR": system.logDirectory.appendingPathComponent("printing").path])
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth,orders,printing"])
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        try #require(await system.get("/readyz")?.status == 200, "\(system.logs())")
        return system
    }

    /// The shipped sample with a label, an end date and the A6 price to Switzerland changed.
    static func postage(label: String, swissA6: Int) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(
                "services/printing/PrintingService/Resources/postage-sample.xml")
        return try String(contentsOf: url, encoding: .utf8)
            .replacingOccurrences(of: #"version="2026-demo-1""#, with: #"version="\#(label)""#)
            .replacingOccurrences(
                of: "<validFrom>2026-01-01</validFrom>",
                with: "<validFrom>2026-01-01</validFrom>\n  <validTo>2030-12-31</validTo>"
            )
            .replacingOccurrences(
                of: #"<price size="A6" country="CH" amount="125"/>"#,
                with: #"<price size="A6" country="CH" amount="\#(swissA6)"/>"#)
    }

    @Test("postage: GET the tariff in force; PUT needs printer or admin; errors name line and element; quotes follow")
    func postage() async throws {
        let system = try await start()
        defer { _ = system.stopBlocking() }
        let anonymous = OrdersHTTPTests.Client(port: system.httpPort, token: nil)

        let current = await anonymous.send("GET", "/v1/postage")
        #expect(current.status == 200, "\(current.body)")
        #expect(orders.json(current.body)["active"] as? Bool == true)
        #expect(orders.json(current.body)["stampMediaType"] as? String == "image/png")

        let swissA6 = Int.random(in: 200...999)
        let xml = try Self.postage(label: "system-\(UUID().uuidString.prefix(8))", swissA6: swissA6)
        let (user, username) = try await orders.signUp(system, "pia")
        #expect(
            await anonymous.send("PUT", "/v1/admin/postage", json: xml, contentType: "application/xml").status == 401)
        #expect(await user.send("PUT", "/v1/admin/postage", json: xml, contentType: "application/xml").status == 403)

        try await Self.grant(["user", "printer"], to: username, in: system)
        let printer = try await orders.signIn(system, username)
        let broken = xml.replacingOccurrences(of: #"size="A5" zone="world""#, with: #"size="A3" zone="world""#)
        let refused = await printer.send("PUT", "/v1/admin/postage", json: broken, contentType: "application/xml")
        #expect(refused.status == 400, "\(refused.body)")
        let details = orders.json(refused.body)["details"] as? [String: Any]
        #expect(details?["element"] as? String == "price")
        let brokenLine = broken.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.contains(#"size="A3""#) }.map { $0 + 1 }
        #expect(details?["line"] as? Int == brokenLine)
        #expect((orders.json(refused.body)["message"] as? String)?.contains("A3") == true)

        let loaded = await printer.send("PUT", "/v1/admin/postage", json: xml, contentType: "application/xml")
        #expect(loaded.status == 200, "\(loaded.body)")
        #expect(orders.json(loaded.body)["active"] as? Bool == true)
        let version = try #require(orders.json(loaded.body)["id"] as? Int)
        let now = await anonymous.send("GET", "/v1/postage")
        #expect(orders.json(now.body)["id"] as? Int == version)
        #expect(orders.json(now.body)["validTo"] as? String == "2030-12-31")

        let quote = await anonymous.send(
            "POST", "/v1/quotes",
            json: #"{"size": "A6", "recipients": [{"country": "CH"}, {"country": "DE"}], "currency": "EUR"}"#)
        #expect(quote.status == 200, "\(quote.body)")
        let lines = orders.json(quote.body)["lines"] as? [[String: Any]] ?? []
        let postage = Dictionary(
            lines.filter { $0["kind"] as? String == "postage" }.map {
                ($0["country"] as? String ?? "", $0["unitAmount"] as? Int ?? -1)
            }, uniquingKeysWith: { first, _ in first })
        #expect(postage == ["CH": swissA6, "DE": 95], "orders priced postage with printing's tariff")
    }

    /// A 4×3 24-bit BMP whose bytes are all ASCII, so the test HTTP client can send it as text.
    static let bmp: String = {
        func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8((value >> ($0 * 8)) & 0xFF) } }
        var bytes = Array("BM".utf8) + le(54 + 48, 4) + le(0, 4) + le(54, 4) + le(40, 4) + le(4, 4) + le(3, 4)
        bytes += le(1, 2) + le(24, 2) + le(0, 4) + le(48, 4) + le(0, 16) + [UInt8](repeating: 0x41, count: 48)
        return String(decoding: bytes, as: UTF8.self)
    }()

    @Test("images: POST a BMP → 201 with its size; GET it; a text file as PNG is 400 wrong_type; others get 404")
    func images() async throws {
        let system = try await start()
        defer { _ = system.stopBlocking() }
        let (ann, _) = try await orders.signUp(system, "ann")
        let (bob, _) = try await orders.signUp(system, "bob")
        let anonymous = OrdersHTTPTests.Client(port: system.httpPort, token: nil)
        #expect(await anonymous.send("POST", "/v1/images", json: Self.bmp, contentType: "image/bmp").status == 401)

        let created = await ann.send("POST", "/v1/images", json: Self.bmp, contentType: "image/bmp")
        #expect(created.status == 201, "\(created.body)")
        let id = try #require(orders.json(created.body)["id"] as? String)
        #expect(orders.json(created.body)["width"] as? Int == 4)
        #expect(orders.json(created.body)["height"] as? Int == 3)
        let fetched = await ann.send("GET", "/v1/images/\(id)")
        #expect(fetched.status == 200 && orders.json(fetched.body)["mediaType"] as? String == "image/bmp")
        #expect(await bob.send("GET", "/v1/images/\(id)").status == 404)

        let text = await ann.send("POST", "/v1/images", json: "just some text\n", contentType: "image/png")
        #expect(text.status == 400, "\(text.body)")
        #expect((orders.json(text.body)["details"] as? [String: Any])?["reason"] as? String == "wrong_type")
        #expect((orders.json(text.body)["message"] as? String)?.contains("PNG") == true)
        let cut = await ann.send("POST", "/v1/images", json: String(Self.bmp.prefix(80)), contentType: "image/bmp")
        #expect((orders.json(cut.body)["details"] as? [String: Any])?["reason"] as? String == "truncated")
    }

    @Test(
        "previews: a JPEG of the front from an upload (flagged under 300 dpi), with edits it differs, a PNG of the back when asked; 400 naming a bad edit's field (preview and order), a bad side; 404 for an unknown image"
    )
    func previews() async throws {
        let system = try await start()
        defer { _ = system.stopBlocking() }
        let (ann, _) = try await orders.signUp(system, "ann")
        let created = await ann.send("POST", "/v1/images", json: Self.bmp, contentType: "image/bmp")
        let id = try #require(orders.json(created.body)["id"] as? String, "\(created.body)")

        let front = await ann.send(
            "POST", "/v1/postcards/preview", json: #"{"imageId": "\#(id)", "size": "A6", "side": "front"}"#)
        #expect(front.status == 200, "\(front.body)")
        #expect(front.header("Content-Type") == "image/jpeg", "JPEG by default")
        #expect(front.header("X-Print-Warning")?.contains("dpi") == true)
        // What many HTTP clients send by default: the JPEG is served all the same.
        let negotiated = await ann.send(
            "POST", "/v1/postcards/preview", json: #"{"imageId": "\#(id)", "size": "A6", "side": "front"}"#,
            headers: ["Accept": "application/json"])
        #expect(negotiated.status == 200, "\(negotiated.body)")
        #expect(negotiated.header("Content-Type") == "image/jpeg")

        let back = await ann.send(
            "POST", "/v1/postcards/preview",
            json: """
                {"size": "A5", "side": "back", "format": "png", "greeting": "Hälsningar från Lund",
                 "recipient": {"name": "Åsa", "address": {"line1": "Storgatan 1", "city": "Lund", "country": "SE"}}}
                """)
        #expect(back.status == 200, "\(back.body)")
        #expect(back.header("Content-Type") == "image/png")
        #expect(back.body.hasPrefix("\u{FFFD}PNG"), "a PNG signature")
        #expect(back.header("X-Print-Warning") == nil)

        let sepia = await ann.send(
            "POST", "/v1/postcards/preview",
            json:
                #"{"imageId": "\#(id)", "size": "A6", "side": "front", "edits": [{"type": "filter", "name": "sepia"}]}"#
        )
        #expect(sepia.status == 200, "\(sepia.body)")
        #expect(sepia.header("Content-Type") == "image/jpeg" && sepia.body != front.body, "the edited preview differs")
        let badEdit = await ann.send(
            "POST", "/v1/postcards/preview",
            json: #"""
                {"imageId": "\#(id)", "size": "A6", "side": "front",
                 "edits": [{"type": "crop", "x": 0, "y": 0, "width": 0.5, "height": 0.5}, {"type": "brightness", "amount": 3}]}
                """#)
        #expect(badEdit.status == 400 && orders.field(badEdit) == "edits[1].amount", "\(badEdit.body)")
        let badOrder = await ann.send(
            "POST", "/v1/orders",
            json: orders.order(card: UUID().uuidString).replacingOccurrences(
                of: #""type": "crop""#, with: #""type": "blur""#),
            headers: ["Idempotency-Key": UUID().uuidString])
        #expect(badOrder.status == 400 && orders.field(badOrder) == "postcard.edits[0].type", "\(badOrder.body)")

        let bad = await ann.send("POST", "/v1/postcards/preview", json: #"{"size": "A6", "side": "inside"}"#)
        #expect(bad.status == 400, "\(bad.body)")
        let missing = await ann.send(
            "POST", "/v1/postcards/preview", json: #"{"imageId": "\#(UUID())", "size": "A6", "side": "front"}"#)
        #expect(missing.status == 404)
    }

    static func grant(_ roles: [String], to username: String, in system: SystemHarness) async throws {
        try await OrdersHTTPTests.withDatabase(url: system.databaseURL) { client, logger in
            try await client.query(
                "UPDATE auth.users SET roles = \(roles) WHERE username = \(username.lowercased())", logger: logger)
        }
    }
}
