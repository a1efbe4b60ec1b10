import Foundation
import PostgresNIO
import Testing

/// Print jobs end to end: gateway, broker, auth, orders and printing as real processes; orders
/// pays, printing renders, the printer downloads and moves jobs, and orders follows. The processes
/// run on a database of their own (``PrintingHTTPTests/start()``), so printing takes no order of
/// another suite.
@Suite("print jobs over HTTP (real processes)", .serialized)
struct PrintJobsHTTPTests {
    let orders = OrdersHTTPTests()

    /// Downloads `path` with curl (the body is binary) as `client`, and returns pdfinfo's page count.
    static func pdfPages(
        _ client: OrdersHTTPTests.Client, _ method: String, _ path: String, json: String? = nil, accept: String? = nil
    ) throws -> Int? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("job-\(UUID()).pdf")
        defer { try? FileManager.default.removeItem(at: file) }
        var arguments = [
            "-s", "-f", "-X", method, "-o", file.path, "-H", "Authorization: Bearer \(client.token ?? "")",
        ]
        if let json { arguments += ["-H", "Content-Type: application/json", "--data", json] }
        if let accept { arguments += ["-H", "Accept: \(accept)"] }
        guard try run("/usr/bin/curl", arguments + ["http://127.0.0.1:\(client.port)\(path)"]) != nil else {
            return nil
        }
        let info = try run("/usr/bin/pdfinfo", [file.path]) ?? ""
        let pages = info.split(separator: "\n").first { $0.hasPrefix("Pages:") }
        return pages.flatMap { Int($0.dropFirst("Pages:".count).trimmingCharacters(in: .whitespaces)) }
    }

    /// Runs a tool; its standard output, or nil when it exits non-zero.
    static func run(_ tool: String, _ arguments: [String]) throws -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: output, as: UTF8.self) : nil
    }

    /// Polls `GET /v1/orders/{id}` until the order is `state` (60 s at most); its history.
    func waitForOrder(_ client: OrdersHTTPTests.Client, _ id: String, _ state: String) async throws -> [String] {
        var states: [String] = []
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, states.last != state {
            let detail = await client.send("GET", "/v1/orders/\(id)")
            states =
                (orders.json(detail.body)["history"] as? [[String: Any]])?.compactMap { $0["state"] as? String } ?? []
            try await Task.sleep(for: .milliseconds(200))
        }
        return states
    }

    /// Polls the printer's list until the order's job is `ready` (60 s at most); the job's id.
    func waitForReadyJob(_ printer: OrdersHTTPTests.Client, order: String) async throws -> String? {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let listed = await printer.send("GET", "/v1/print-jobs?status=ready")
            let jobs = orders.json(listed.body)["items"] as? [[String: Any]] ?? []
            if let job = jobs.first(where: { $0["orderId"] as? String == order }) {
                #expect(job["cards"] as? Int == 1)
                #expect(job["createdAt"] is String)
                return job["id"] as? String
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        return nil
    }

    /// The sum of the order's movements on the charge account, and how many captures it had.
    static func charges(of orderId: String, in system: SystemHarness) async throws
        -> (balance: Int64, captures: Int64)
    {
        var result: (Int64, Int64) = (-1, -1)
        try await OrdersHTTPTests.withDatabase(url: system.databaseURL) { client, logger in
            let rows = try await client.query(
                """
                SELECT coalesce(sum(amount), 0)::bigint, count(*) FILTER (WHERE movement = 'capture')
                FROM orders.ledger WHERE order_id = \(UUID(uuidString: orderId)!) AND account = 'charge'
                """, logger: logger)
            for try await row in rows.decode((Int64, Int64).self) { result = row }
        }
        return result
    }

    /// The owners named in an order's `printing.job_failed` events (notify's `print_job_failed`
    /// needs one to tell the customer).
    static func failureOwners(of orderId: String, in system: SystemHarness) async throws -> [String?] {
        var owners: [String?] = []
        try await OrdersHTTPTests.withDatabase(url: system.databaseURL) { client, logger in
            let rows = try await client.query(
                """
                SELECT payload->>'userId' FROM events.log
                WHERE topic = 'printing.job_failed' AND payload->>'orderId' = \(orderId)
                """, logger: logger)
            for try await owner in rows.decode(String?.self) { owners.append(owner) }
        }
        return owners
    }

    @Test(
        "a paid postcard order becomes a ready job; the printer downloads it, marks it printed then mailed and the order is mailed; a failed job refunds"
    )
    func printJobs() async throws {
        let system = try await PrintingHTTPTests().start()
        defer { _ = system.stopBlocking() }
        let (ann, _) = try await orders.signUp(system, "ann")
        let saved = await ann.send(
            "POST", "/v1/payment-methods",
            json: #"{"number": "4242424242424242", "expMonth": 12, "expYear": 2030, "cvc": "123"}"#)
        let card = try #require(orders.json(saved.body)["id"] as? String, "\(saved.body)")
        var orderIds: [String] = []
        for name in ["Mo Mailed", "Fay Failed"] {
            let placed = await ann.send(
                "POST", "/v1/orders", json: orders.order(card: card, name: name),
                headers: ["Idempotency-Key": UUID().uuidString])
            orderIds.append(try #require(orders.json(placed.body)["id"] as? String, "\(placed.body)"))
        }
        let (_, printerName) = try await orders.signUp(system, "pat")
        try await PrintingHTTPTests.grant(["user", "printer"], to: printerName, in: system)
        let printer = try await orders.signIn(system, printerName)

        #expect(await ann.send("GET", "/v1/print-jobs").status == 403)
        #expect(await printer.send("GET", "/v1/print-jobs?status=lost").status == 400)
        let mailedJob = try #require(try await waitForReadyJob(printer, order: orderIds[0]), "\(system.logs())")
        let failedJob = try #require(try await waitForReadyJob(printer, order: orderIds[1]))
        #expect(try await waitForOrder(ann, orderIds[0], "in_production").last == "in_production")

        #expect(try Self.pdfPages(printer, "GET", "/v1/print-jobs/\(mailedJob)/pdf") == 2)
        #expect(
            try Self.pdfPages(printer, "GET", "/v1/print-jobs/\(mailedJob)/pdf", accept: "application/json") == 2,
            "the PDF whatever Accept says")
        #expect(try Self.pdfPages(ann, "GET", "/v1/print-jobs/\(mailedJob)/pdf") == nil, "not for a customer")
        let batch = #"{"ids": ["\#(mailedJob)", "\#(failedJob)"]}"#
        #expect(try Self.pdfPages(printer, "POST", "/v1/print-jobs/batch.pdf", json: batch) == 4)
        #expect(await printer.send("GET", "/v1/print-jobs/\(UUID())/pdf").status == 404)

        #expect(await printer.send("POST", "/v1/print-jobs/\(mailedJob)/mailed").status == 422, "not printed yet")
        let printed = await printer.send("POST", "/v1/print-jobs/\(mailedJob)/printed")
        #expect(printed.status == 200 && orders.json(printed.body)["status"] as? String == "printed", "\(printed.body)")
        let mailed = await printer.send("POST", "/v1/print-jobs/\(mailedJob)/mailed")
        #expect(mailed.status == 200 && orders.json(mailed.body)["status"] as? String == "mailed", "\(mailed.body)")
        #expect(
            await printer.send("POST", "/v1/print-jobs/\(mailedJob)/failed", json: #"{"reason": "x"}"#).status == 422)
        #expect(
            try await waitForOrder(ann, orderIds[0], "mailed") == [
                "pending_payment", "paid", "in_production", "printed", "mailed",
            ])

        #expect(
            await printer.send("POST", "/v1/print-jobs/\(failedJob)/failed", json: #"{"reason": " "}"#).status == 400)
        let failed = await printer.send("POST", "/v1/print-jobs/\(failedJob)/failed", json: #"{"reason": "paper jam"}"#)
        #expect(failed.status == 200 && orders.json(failed.body)["reason"] as? String == "paper jam", "\(failed.body)")
        #expect(try await waitForOrder(ann, orderIds[1], "refunded").suffix(2) == ["failed", "refunded"])
        let charges = try await Self.charges(of: orderIds[1], in: system)
        #expect(charges.captures == 1, "captured when printing accepted the job")
        #expect(charges.balance == 0, "the capture was refunded in full")
        let listed = await printer.send("GET", "/v1/print-jobs?status=failed")
        #expect(listed.body.contains(failedJob))
        let owner = try #require(orders.json((await ann.send("GET", "/v1/me")).body)["userId"] as? String)
        #expect(try await Self.failureOwners(of: orderIds[1], in: system) == [owner])
    }
}
