import Foundation
import PostgresNIO
import Testing

/// "Your postcard is on its way": the printer marks an order's print job (all its cards) mailed
/// over HTTP, and the buyer finds one notice in the inbox. Gateway, broker, auth, orders,
/// printing and notify run as processes on a database of their own, so printing takes no order of
/// another suite.
@Suite("order-mailed notice over HTTP (real processes)", .serialized)
struct OrderMailedHTTPTests {
    let orders = OrdersHTTPTests()
    let jobs = PrintJobsHTTPTests()

    func start() async throws -> SystemHarness {
        let system = try SystemHarness(ownDatabase: true)
        let quick = ["EVENTS_POLL_MS": "200"]
        try system.start("broker")
        try system.start("auth")
        try system.start("orders", extra: quick)
        try system.start(
            "printing",
            extra: quick.merging(["DATA_DIR": system.logDirectory.appendingPathComponent("printing").path]) { $1 })
        try system.start("notify", extra: quick.merging(["SMTP_HOST": "none"]) { $1 })
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth,orders,printing,notify"])
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        try #require(await system.get("/readyz")?.status == 200, "\(system.logs())")
        return system
    }

    /// The caller's inbox items of kind `order_mailed`.
    func mailedNotices(_ client: OrdersHTTPTests.Client) async -> [[String: Any]] {
        let inbox = await client.send("GET", "/v1/me/notifications?limit=50")
        let items = orders.json(inbox.body)["items"] as? [[String: Any]] ?? []
        return items.filter { $0["kind"] as? String == "order_mailed" }
    }

    @Test("marking an order's cards mailed sends one notice to the inbox; marking again, or the event again, sends none")
    func onePerOrder() async throws {
        let system = try await start()
        defer { _ = system.stopBlocking() }
        let (ann, _) = try await orders.signUp(system, "ann")
        let saved = await ann.send(
            "POST", "/v1/payment-methods",
            json: #"{"number": "4242424242424242", "expMonth": 12, "expYear": 2030, "cvc": "123"}"#)
        let card = try #require(orders.json(saved.body)["id"] as? String, "\(saved.body)")
        let placed = await ann.send(
            "POST", "/v1/orders", json: orders.order(card: card, name: "Mo Mailed"),
            headers: ["Idempotency-Key": UUID().uuidString])
        let orderId = try #require(orders.json(placed.body)["id"] as? String, "\(placed.body)")
        let (_, printerName) = try await orders.signUp(system, "pat")
        try await PrintingHTTPTests.grant(["user", "printer"], to: printerName, in: system)
        let printer = try await orders.signIn(system, printerName)
        let job = try #require(try await jobs.waitForReadyJob(printer, order: orderId), "\(system.logs())")

        #expect(await printer.send("POST", "/v1/print-jobs/\(job)/printed").status == 200)
        #expect(await mailedNotices(ann).isEmpty, "printed is not yet in the post")
        let mailed = await printer.send("POST", "/v1/print-jobs/\(job)/mailed")
        #expect(mailed.status == 200 && orders.json(mailed.body)["status"] as? String == "mailed", "\(mailed.body)")

        var notices: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, notices.isEmpty {
            try await Task.sleep(for: .milliseconds(200))
            notices = await mailedNotices(ann)
        }
        #expect(notices.count == 1, "\(system.logs())")
        #expect(notices.first?["title"] as? String == "Your postcard is on its way")
        #expect((notices.first?["body"] as? String)?.contains(orderId) == true, "\(notices)")

        // Marking again is refused, and the same fact arriving again (a replay under a new event
        // id) makes no second notice.
        #expect(await printer.send("POST", "/v1/print-jobs/\(job)/mailed").status == 422)
        try await OrdersHTTPTests.withDatabase(url: system.databaseURL) { client, logger in
            try await client.query(
                """
                INSERT INTO events.log (id, topic, producer, payload, request_id, created_at)
                SELECT \(UUID()), topic, producer, payload, NULL, now() FROM events.log
                WHERE topic = 'printing.job_mailed' AND payload->>'orderId' = \(orderId)
                """, logger: logger)
        }
        // Wait until notify's consumer has passed the replayed event, then look again.
        let settle = Date().addingTimeInterval(30)
        var handled = 0
        while Date() < settle, handled < 2 {
            try await Task.sleep(for: .milliseconds(200))
            try await OrdersHTTPTests.withDatabase(url: system.databaseURL) { client, logger in
                let rows = try await client.query(
                    """
                    SELECT count(*)::int8 FROM events.handled AS h JOIN events.log AS l ON l.id = h.event_id
                    WHERE h.consumer = 'notify.services' AND l.topic = 'printing.job_mailed'
                      AND l.payload->>'orderId' = \(orderId)
                    """, logger: logger)
                for try await count in rows.decode(Int64.self) { handled = Int(count) }
            }
        }
        #expect(handled == 2, "notify handled both events of the order")
        #expect(await mailedNotices(ann).count == 1)
        #expect(try await jobs.waitForOrder(ann, orderId, "mailed").last == "mailed")
    }
}
