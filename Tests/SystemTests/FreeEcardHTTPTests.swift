import Foundation
import Testing

/// Free e-cards over HTTP with real processes (broker, auth, orders, printing, notify, gateway)
/// and a real SMTP server: a buyer with no card on file sends one, it is rendered and mailed,
/// nothing is charged, and the daily cap on free e-card recipients answers 429 with
/// `Retry-After` once it is reached.
@Suite("free e-cards without a card over HTTP (real processes)", .serialized)
struct FreeEcardHTTPTests {
    let orders = OrdersHTTPTests()

    /// The free e-card recipients a day the system is started with.
    static let cap = 3

    static func ecard(_ emails: [String], imageId: String? = nil) -> String {
        let image = imageId.map { #""imageId": "\#($0)", "# } ?? ""
        let recipients = emails.map { #"{"email": "\#($0)"}"# }.joined(separator: ", ")
        return """
            {"kind": "ecard", "currency": "EUR",
             "ecard": {\(image)"size": "A6", "greeting": "Hälsningar från Lund", "senderName": "Ann",
               "recipients": [\(recipients)]}}
            """
    }

    @Test(
        "no card on file: a free e-card is placed without paymentMethodId, mailed to each recipient, charged nothing; past the cap a 429 with Retry-After to midnight UTC"
    )
    func freeEcardWithoutCard() async throws {
        let smtp = try await NotifyHTTPTests.Sink("deploy/smtp-sink/smtp_sink.py") { port, dir in
            ["--port", "\(port)", "--dir", dir.appendingPathComponent("out").path]
        }
        defer { smtp.stop() }
        let system = try SystemHarness(ownDatabase: true)
        defer { _ = system.stopBlocking() }
        let quick = ["EVENTS_POLL_MS": "200"]
        try system.start("broker")
        try system.start("auth", extra: quick)
        try system.start("orders", extra: quick.merging(["FREE_ECARD_RECIPIENTS_PER_DAY": "\(Self.cap)"]) { $1 })
        try system.start(
            "printing",
            extra: quick.merging([
                "DATA_DIR": system.logDirectory.appendingPathComponent("printing").path,
                "ECARD_PUBLIC_URL": "http://127.0.0.1:\(system.httpPort)/v1/ecards", "ECARD_DPI": "100",
            ]) { $1 })
        try system.start(
            "notify",
            extra: quick.merging([
                "SMTP_PORT": "\(smtp.port)", "SMTP_STARTTLS": "off", "DELIVERY_POLL_MS": "100",
                "DELIVERY_BACKOFF_MS": "200",
            ]) { $1 })
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth,orders,printing,notify"])
        let ready = Date().addingTimeInterval(90)
        while Date() < ready, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        try #require(await system.get("/readyz")?.status == 200, "\(system.logs())")

        let (ann, _) = try await orders.signUp(system, "ann")
        let cards = await ann.send("GET", "/v1/payment-methods")
        #expect(cards.status == 200 && (orders.json(cards.body)["items"] as? [Any])?.isEmpty == true, "\(cards.body)")
        let upload = await ann.send("POST", "/v1/images", json: PrintingHTTPTests.bmp, contentType: "image/bmp")
        let imageId = try #require(orders.json(upload.body)["id"] as? String, "\(upload.body)")
        let run = UUID().uuidString.prefix(8).lowercased()
        let recipients = ["bo-\(run)@example.org", "cy-\(run)@example.org"]
        let placed = await ann.send(
            "POST", "/v1/orders", json: Self.ecard(recipients, imageId: imageId),
            headers: ["Idempotency-Key": UUID().uuidString])
        #expect(placed.status == 201, "\(placed.body)")
        let body = orders.json(placed.body)
        let orderId = try #require(body["id"] as? String)
        #expect(body["state"] as? String == "paid")
        #expect((body["total"] as? [String: Any])?["amount"] as? Int == 0)

        // An order that costs money still needs a card.
        let postcard = await ann.send(
            "POST", "/v1/orders",
            json: """
                {"kind": "postcard", "currency": "EUR", "postcard": {"size": "A6", "greeting": "Hej",
                 "recipients": [{"name": "Bo", "address": {"line1": "Storgatan 1", "city": "Lund", "country": "SE"}}]}}
                """, headers: ["Idempotency-Key": UUID().uuidString])
        #expect(postcard.status == 400 && orders.field(postcard) == "paymentMethodId", "\(postcard.body)")

        // Rendered and mailed as a paid e-card is.
        let mine = { smtp.files(".eml").filter { mail in recipients.contains { mail.contains("X-Envelope-To: \($0)") } } }
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, mine().count < 2 { try await Task.sleep(for: .milliseconds(200)) }
        try #require(mine().count == 2, "one mail per recipient: \(system.logs())")
        #expect(try mine().allSatisfy { try ECardHTTPTests.parse($0).types.contains("image/jpeg") })
        let read = await ann.send("GET", "/v1/orders/\(orderId)")
        #expect(read.status == 200 && orders.json(read.body)["paymentMethod"] == nil, "\(read.body)")
        #expect(orders.json(read.body)["state"] as? String == "paid", "\(read.body)")

        // The cap: 2 recipients sent, 1 more allowed, then 429 until midnight UTC.
        let third = await ann.send(
            "POST", "/v1/orders", json: Self.ecard(["dan-\(run)@example.org"]),
            headers: ["Idempotency-Key": UUID().uuidString])
        #expect(third.status == 201, "\(third.body)")
        let key = UUID().uuidString
        let over = await ann.send(
            "POST", "/v1/orders", json: Self.ecard(["eve-\(run)@example.org"]), headers: ["Idempotency-Key": key])
        let now = Date().timeIntervalSince1970
        let untilMidnight = (now / 86_400).rounded(.down) * 86_400 + 86_400 - now
        #expect(over.status == 429, "\(over.body)")
        let retryAfter = try #require(Int(over.header("Retry-After") ?? ""), "\(over.head)")
        #expect(abs(Double(retryAfter) - untilMidnight) < 30, "\(retryAfter) s against \(untilMidnight) s to midnight")
        let refused = orders.json(over.body)
        #expect(refused["code"] as? String == "rate_limited")
        #expect((refused["requestId"] as? String)?.isEmpty == false)
        #expect((refused["message"] as? String)?.contains("\(Self.cap) recipients a day") == true, "\(over.body)")
        let details = try #require(refused["details"] as? [String: Any])
        #expect(details["reason"] as? String == "free_ecard_limit" && details["field"] as? String == "ecard.recipients")
        #expect(details["limit"] as? Int == Self.cap && details["sentToday"] as? Int == 3)
        let again = await ann.send(
            "POST", "/v1/orders", json: Self.ecard(["eve-\(run)@example.org"]), headers: ["Idempotency-Key": key])
        #expect(again.status == 429, "the refused key was not used: \(again.body)")

        // Another account has its own count.
        let (bo, _) = try await orders.signUp(system, "bo")
        let boPlaced = await bo.send(
            "POST", "/v1/orders", json: Self.ecard(["fay-\(run)@example.org"]),
            headers: ["Idempotency-Key": UUID().uuidString])
        #expect(boPlaced.status == 201, "\(boPlaced.body)")

        // Nothing held or charged, no card named, and no order for the refusals.
        #expect(
            try await ECardHTTPTests.value(
                Int64.self, system,
                "SELECT count(*) FROM orders.ledger WHERE order_id IN (SELECT id FROM orders.orders WHERE total_amount = 0)"
            ) == 0)
        #expect(
            try await ECardHTTPTests.value(
                Int64.self, system,
                "SELECT count(*) FROM orders.orders WHERE payment_method_id IS NULL AND authorization_id IS NULL") == 3)
    }
}
