import Foundation
import PostgresNIO
import Testing

/// E-cards end to end with real processes (broker, auth, orders, printing, notify, gateway) and a
/// real SMTP server (aiosmtpd): a paid e-card order → printing renders one JPEG of both sides →
/// notify mails it inline to each recipient; the public link serves the same bytes; a replayed
/// `orders.paid` makes no second image or mail.
@Suite("e-cards over HTTP (real processes)", .serialized)
struct ECardHTTPTests {
    let orders = OrdersHTTPTests()

    /// A mail read by Python's `email` package: the content types of every part, the plain text,
    /// the HTML, the inline image (base64) and its Content-ID.
    struct ParsedMail: Decodable {
        let types: [String]
        let text: String
        let html: String
        let image: String
        let cid: String
    }

    static func parse(_ mail: String) throws -> ParsedMail {
        let script = """
            import email, json, sys, base64
            from email import policy
            m = email.message_from_string(sys.stdin.read(), policy=policy.default)
            out = {"types": [p.get_content_type() for p in m.walk()], "text": "", "html": "", "image": "", "cid": ""}
            for p in m.walk():
                t = p.get_content_type()
                if t == "text/plain": out["text"] = p.get_content()
                elif t == "text/html": out["html"] = p.get_content()
                elif t == "image/jpeg":
                    out["image"] = base64.b64encode(p.get_content()).decode()
                    out["cid"] = p["Content-ID"] or ""
            print(json.dumps(out))
            """
        return try JSONDecoder().decode(ParsedMail.self, from: ShareHTTPTests.python(script, input: mail))
    }

    /// Width and height from a JPEG's start-of-frame marker.
    static func jpegSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        var index = 2
        while index + 9 < bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if (0xC0...0xC2).contains(marker) {
                return (
                    Int(bytes[index + 7]) << 8 | Int(bytes[index + 8]),
                    Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                )
            }
            index += 2 + length
        }
        return nil
    }

    /// One value from the database.
    static func value<T: PostgresDecodable & Sendable>(_ type: T.Type, _ system: SystemHarness, _ query: PostgresQuery)
        async throws -> T?
    {
        var found: T?
        try await OrdersHTTPTests.withDatabase(url: system.databaseURL) { client, logger in
            for try await value in try await client.query(query, logger: logger).decode(T.self) { found = value }
        }
        return found
    }

    /// Broker, auth, orders, printing (e-card links on this system's gateway, 100 dpi), notify
    /// (mailing to the SMTP sink at `smtpPort`) and the gateway, ready; `printing` adds settings.
    static func startCardSystem(
        _ system: SystemHarness, smtpPort: Int, printing: [String: String] = [:]
    ) async throws {
        let quick = ["EVENTS_POLL_MS": "200"]
        try system.start("broker")
        try system.start("auth", extra: quick)
        try system.start("orders", extra: quick)
        try system.start(
            "printing",
            extra: quick.merging([
                "DATA_DIR": system.logDirectory.appendingPathComponent("printing").path,
                "ECARD_PUBLIC_URL": "http://127.0.0.1:\(system.httpPort)/v1/ecards", "ECARD_DPI": "100",
            ]) { _, new in new }.merging(printing) { _, new in new })
        try system.start(
            "notify",
            extra: quick.merging([
                "SMTP_PORT": "\(smtpPort)", "SMTP_STARTTLS": "off", "DELIVERY_POLL_MS": "100",
                "DELIVERY_BACKOFF_MS": "200",
            ]) { _, new in new })
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth,orders,printing,notify"])
        let ready = Date().addingTimeInterval(90)
        while Date() < ready, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        try #require(await system.get("/readyz")?.status == 200, "\(system.logs())")
    }

    @Test(
        "a paid e-card order ends as one mail per recipient with the two-sided JPEG inline; the link serves the same bytes; a replay sends nothing more"
    )
    func ecardEndToEnd() async throws {
        let smtp = try await NotifyHTTPTests.Sink("deploy/smtp-sink/smtp_sink.py") { port, dir in
            ["--port", "\(port)", "--dir", dir.appendingPathComponent("out").path]
        }
        defer { smtp.stop() }
        let system = try SystemHarness(ownDatabase: true)
        defer { _ = system.stopBlocking() }
        try await Self.startCardSystem(system, smtpPort: smtp.port)

        let (ann, _) = try await orders.signUp(system, "ann")
        let saved = await ann.send(
            "POST", "/v1/payment-methods",
            json: #"{"number": "4242424242424242", "expMonth": 12, "expYear": 2030, "cvc": "123"}"#)
        let card = try #require(orders.json(saved.body)["id"] as? String, "\(saved.body)")
        let upload = await ann.send("POST", "/v1/images", json: PrintingHTTPTests.bmp, contentType: "image/bmp")
        let imageId = try #require(orders.json(upload.body)["id"] as? String, "\(upload.body)")
        let run = UUID().uuidString.prefix(8).lowercased()
        let recipients = ["bo-\(run)@example.org", "cy-\(run)@example.org"]
        let placed = await ann.send(
            "POST", "/v1/orders",
            json: """
                {"kind": "ecard", "currency": "EUR", "paymentMethodId": "\(card)",
                 "ecard": {"imageId": "\(imageId)", "size": "A6", "greeting": "Hälsningar från Lund", "senderName": "Ann",
                   "recipients": [{"name": "Bo", "email": "\(recipients[0])"}, {"email": "\(recipients[1])"}]}}
                """, headers: ["Idempotency-Key": UUID().uuidString])
        #expect(placed.status == 201, "\(placed.body)")
        let orderId = try #require(orders.json(placed.body)["id"] as? String)
        let bad = await ann.send(
            "POST", "/v1/orders",
            json:
                #"{"kind": "ecard", "currency": "EUR", "paymentMethodId": "\#(card)", "ecard": {"size": "A3", "recipients": [{"email": "a@example.org"}]}}"#,
            headers: ["Idempotency-Key": UUID().uuidString])
        #expect(bad.status == 400 && bad.body.contains("ecard.size"), "\(bad.body)")

        // Someone else's upload, or an image that does not exist, is refused when the order is
        // placed (printing decides, asked as the buyer), before anything is charged.
        let (bo, _) = try await orders.signUp(system, "bo")
        let boSaved = await bo.send(
            "POST", "/v1/payment-methods",
            json: #"{"number": "4242424242424242", "expMonth": 12, "expYear": 2030, "cvc": "123"}"#)
        let boCard = try #require(orders.json(boSaved.body)["id"] as? String, "\(boSaved.body)")
        for (kind, foreign) in [("ecard", imageId), ("ecard", UUID().uuidString), ("postcard", imageId)] {
            let details =
                kind == "ecard"
                ? #""ecard": {"imageId": "\#(foreign)", "recipients": [{"email": "bo-\#(run)@example.org"}]}"#
                : #""postcard": {"imageId": "\#(foreign)", "size": "A6", "recipients": [{"name": "Bo", "#
                    + #""address": {"line1": "Box 1", "city": "Lund", "postalCode": "22100", "country": "SE"}}]}"#
            let refused = await bo.send(
                "POST", "/v1/orders",
                json: #"{"kind": "\#(kind)", "currency": "EUR", "paymentMethodId": "\#(boCard)", \#(details)}"#,
                headers: ["Idempotency-Key": UUID().uuidString])
            #expect(refused.status == 404, "\(kind) with \(foreign): \(refused.body)")
            #expect(refused.body.contains("\"field\":\"\(kind).imageId\""), "\(refused.body)")
        }
        let boOrders = await bo.send("GET", "/v1/orders")
        #expect(boOrders.status == 200)
        #expect((orders.json(boOrders.body)["items"] as? [Any])?.isEmpty == true, "no order kept: \(boOrders.body)")

        let mine = {
            smtp.files(".eml").filter { mail in recipients.contains { mail.contains("X-Envelope-To: \($0)") } }
        }
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, mine().count < 2 { try await Task.sleep(for: .milliseconds(200)) }
        let mails = mine()
        try #require(mails.count == 2, "one mail per recipient: \(system.logs())")

        var images: Set<String> = []
        var link: String?
        for mail in mails {
            let parsed = try Self.parse(mail)
            #expect(parsed.types.starts(with: ["multipart/related", "multipart/alternative"]), "\(parsed.types)")
            #expect(parsed.types.contains("image/jpeg"))
            let cid = parsed.cid.trimmingCharacters(in: CharacterSet(charactersIn: "<>"))
            #expect(!cid.isEmpty && parsed.html.contains("cid:\(cid)"), "the HTML shows the inline image")
            #expect(parsed.text.contains("Hälsningar från Lund"))
            images.insert(parsed.image)
            link = parsed.text.split(whereSeparator: \.isWhitespace).first { $0.contains("/v1/ecards/") }.map(
                String.init)
        }
        #expect(images.count == 1, "both recipients got the same image")
        let jpeg = try #require(images.first.flatMap { Data(base64Encoded: $0) }).map { $0 }
        let size = try #require(Self.jpegSize(jpeg))
        #expect(size.width == 2 * 583 && size.height == 413, "front and back of A6 at 100 dpi side by side: \(size)")
        let url = try #require(link)
        #expect(url.hasPrefix("http://127.0.0.1:\(system.httpPort)/v1/ecards/"))
        let served = FileManager.default.temporaryDirectory.appendingPathComponent("ecard-\(UUID()).jpg")
        defer { try? FileManager.default.removeItem(at: served) }
        #expect(try PrintJobsHTTPTests.run("/usr/bin/curl", ["-s", "-f", "-o", served.path, url]) != nil)
        #expect(try [UInt8](Data(contentsOf: served)) == jpeg, "the public link serves the same bytes")
        #expect(try PrintJobsHTTPTests.run("/usr/bin/curl", ["-s", "-f", "-o", "/dev/null", url + "x"]) == nil, "404")

        // Replay: the same orders.paid again under a new event id.
        let replayed = try #require(
            try await Self.value(
                Int64.self, system,
                """
                INSERT INTO events.log (id, topic, producer, payload, request_id, created_at)
                SELECT gen_random_uuid(), topic, producer, payload, request_id, now() FROM events.log
                WHERE topic = 'orders.paid' AND payload->>'orderId' = \(orderId)
                RETURNING seq
                """))
        let caughtUp = Date().addingTimeInterval(60)
        while Date() < caughtUp {
            let seq = try await Self.value(
                Int64.self, system, "SELECT last_seq FROM events.consumers WHERE name = 'printing.orders'")
            if (seq ?? 0) >= replayed { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(
            try await Self.value(
                Int64.self, system, "SELECT last_seq FROM events.consumers WHERE name = 'printing.orders'") ?? 0
                >= replayed, "printing handled the replay")
        #expect(
            try await Self.value(
                Int64.self, system, "SELECT count(*) FROM printing.ecards WHERE order_id = \(orderId)") == 1)
        #expect(
            try await Self.value(
                Int64.self, system,
                "SELECT count(*) FROM events.log WHERE topic = 'printing.ecard_rendered' AND payload->>'orderId' = \(orderId)"
            ) == 1)
        try await Task.sleep(for: .seconds(2))
        #expect(mine().count == 2, "no second mail")
    }
}
