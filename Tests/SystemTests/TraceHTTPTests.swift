import Foundation
import TestSupport
import Testing

/// One order's trace across real processes: gateway, orders, printing and notify export their
/// spans (OTLP/HTTP, protobuf) to a stand-in collector (`deploy/otlp-standin`), and the order placed
/// with a given `traceparent` is followed through them.
@Suite("tracing across processes (real processes)", .serialized)
struct TraceHTTPTests {
    let orders = OrdersHTTPTests()

    @Test(
        "an order placed with a traceparent: gateway, bus call, orders' handler and SQL, printing's and notify's consumers and the jobs they queue (the card's render, the mail's delivery) share its trace, each span a child of the one that caused it; every log line of it names the trace"
    )
    func orderTrace() async throws {
        try TestLayers.requireProcesses()
        let collector = try await OTLPCollector.start()
        defer { collector.stop() }
        let system = try SystemHarness(ownDatabase: true)
        defer { _ = system.stopBlocking() }
        let traced = [
            "OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint, "OTEL_BSP_SCHEDULE_DELAY": "100",
            "EVENTS_POLL_MS": "200",
        ]
        try system.start("broker")
        try system.start("auth", extra: traced)
        try system.start("orders", extra: traced)
        try system.start(
            "printing",
            extra: traced.merging(["DATA_DIR": system.logDirectory.appendingPathComponent("printing").path]) { $1 })
        try system.start("notify", extra: traced.merging(["SMTP_HOST": "none"]) { $1 })
        try system.start("gateway", extra: traced.merging(["READINESS_SERVICES": "auth,orders,printing,notify"]) { $1 })
        let ready = Date().addingTimeInterval(90)
        while Date() < ready, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        try #require(await system.get("/readyz")?.status == 200, "\(system.logs())")

        let (ann, _) = try await orders.signUp(system, "ann")
        let saved = await ann.send(
            "POST", "/v1/payment-methods",
            json: #"{"number": "4242424242424242", "expMonth": 12, "expYear": 2030, "cvc": "123"}"#)
        let card = try #require(orders.json(saved.body)["id"] as? String, "\(saved.body)")

        // The client's own span, as a phone app with tracing would send it.
        let traceId = (UUID().uuidString + UUID().uuidString).replacingOccurrences(of: "-", with: "").lowercased()
            .prefix(32)
        let clientSpan = "00f067aa0ba902b7"
        let placed = await ann.send(
            "POST", "/v1/orders", json: orders.order(card: card),
            headers: [
                "Idempotency-Key": UUID().uuidString, "traceparent": "00-\(traceId)-\(clientSpan)-01",
                "tracestate": "phone=1",
            ])
        #expect(placed.status == 201, "\(placed.body)")
        let traceresponse = try #require(placed.header("traceresponse"), "\(placed.head)")
        #expect(traceresponse.hasPrefix("00-\(traceId)-") && traceresponse.hasSuffix("-01"), "\(traceresponse)")

        // Wait for every service's part, and for every parent named to have arrived too.
        let spans = await collector.spans(traceId: String(traceId)) { spans in
            let services = Set(spans.map(\.service))
            let ids = Set(spans.map(\.spanId)).union([clientSpan])
            let consumers = spans.filter { $0.kind == 5 }.map(\.service)
            let jobs = spans.filter { $0.name.hasPrefix("job ") }.map(\.service)
            return services.isSuperset(of: ["gateway", "orders", "printing", "notify"])
                && consumers.contains("printing") && consumers.contains("notify")
                && jobs.contains("printing") && jobs.contains("notify")
                && spans.allSatisfy({ ids.contains($0.parentSpanId ?? "") })
        }
        let tree = spans.map(\.description).joined(separator: "\n")
        let byId = Dictionary(spans.map { ($0.spanId, $0) }, uniquingKeysWith: { first, _ in first })

        // gateway: the request (server), a child of the client's span, carrying its trace state.
        let request = try #require(
            spans.first { $0.service == "gateway" && $0.kind == 2 }, "no gateway request span:\n\(tree)")
        #expect(request.parentSpanId == clientSpan, "\(tree)")
        #expect(request.traceState == "phone=1", "\(tree)")
        #expect(request.name == "POST /v1/orders", "\(tree)")
        #expect(request.attributes["http.response.status_code"] == "201", "\(request.attributes)")
        #expect(traceresponse.contains(request.spanId), "the traceresponse names the request span")
        // the bus call to orders (client), a child of the request.
        let call = try #require(
            spans.first { $0.service == "gateway" && $0.kind == 3 && $0.attributes["rpc.service"] == "orders" },
            "no bus call span:\n\(tree)")
        #expect(call.parentSpanId == request.spanId, "\(tree)")
        // orders' handler (server), a child of the call; its SQL transactions its children.
        let handler = try #require(
            spans.first { $0.service == "orders" && $0.kind == 2 && $0.parentSpanId == call.spanId },
            "no orders handler span under the bus call:\n\(tree)")
        #expect(handler.attributes["rpc.method"] == call.attributes["rpc.method"])
        let sql = spans.filter { $0.service == "orders" && $0.name == "sql transaction" }
        #expect(!sql.isEmpty, "\(tree)")
        #expect(sql.allSatisfy { byId[$0.parentSpanId ?? ""]?.service == "orders" }, "\(tree)")
        #expect(sql.contains { $0.parentSpanId == handler.spanId }, "\(tree)")

        // printing's and notify's consumers: children of the orders span that appended the event.
        let ordersSpans = Set(spans.filter { $0.service == "orders" }.map(\.spanId))
        let printing = try #require(
            spans.first { $0.service == "printing" && $0.kind == 5 && $0.name.hasSuffix("orders.paid") },
            "no printing consumer span:\n\(tree)")
        #expect(ordersSpans.contains(printing.parentSpanId ?? ""), "\(tree)")
        let notify = try #require(
            spans.first { $0.service == "notify" && $0.kind == 5 && $0.name.hasSuffix("orders.succeeded") },
            "no notify consumer span:\n\(tree)")
        #expect(ordersSpans.contains(notify.parentSpanId ?? ""), "\(tree)")

        // The jobs those consumers queued run later, each in a span of the same trace under the
        // span that queued it: printing's render of the card, notify's delivery of the mail.
        let printingSpans = Set(spans.filter { $0.service == "printing" && !$0.name.hasPrefix("job ") }.map(\.spanId))
        let render = try #require(
            spans.first { $0.service == "printing" && $0.name == "job render_print_job" },
            "no printing render job span:\n\(tree)")
        #expect(render.kind == 5 && render.attributes["job.kind"] == "render_print_job", "\(render.attributes)")
        #expect(render.attributes["job.attempt"] == "1", "\(render.attributes)")
        #expect(printingSpans.contains(render.parentSpanId ?? ""), "\(tree)")
        let notifySpans = Set(spans.filter { $0.service == "notify" && !$0.name.hasPrefix("job ") }.map(\.spanId))
        let delivery = try #require(
            spans.first { $0.service == "notify" && $0.name.hasPrefix("job ") },
            "no notify delivery job span:\n\(tree)")
        #expect(["job email", "job push"].contains(delivery.name), "\(tree)")
        #expect(notifySpans.contains(delivery.parentSpanId ?? ""), "\(tree)")
        // Every span of the trace hangs from one that is in it (or the client's).
        let ids = Set(spans.map(\.spanId)).union([clientSpan])
        #expect(spans.allSatisfy { ids.contains($0.parentSpanId ?? "") }, "a span with a parent outside:\n\(tree)")

        // Logs: every line of the request names the trace, in the gateway and in orders.
        _ = await system.stopAll()
        let files = try FileManager.default.contentsOfDirectory(at: system.logDirectory, includingPropertiesForKeys: nil)
        for service in ["gateway", "orders", "printing", "notify"] {
            let text = files.filter { $0.lastPathComponent.hasPrefix("\(service)-") }
                .compactMap { try? String(contentsOf: $0, encoding: .utf8) }.joined()
            let lines = text.split(separator: "\n").filter { $0.contains(#""traceId":"\#(traceId)""#) }
            #expect(!lines.isEmpty, "no \(service) log line names the trace")
        }
        let requestLines = files.filter { $0.lastPathComponent.hasPrefix("orders-") }
            .compactMap { try? String(contentsOf: $0, encoding: .utf8) }.joined().split(separator: "\n")
            .filter { $0.contains(#""operation":"\#(handler.attributes["rpc.method"] ?? "?")""#) }
        #expect(!requestLines.isEmpty)
        #expect(requestLines.allSatisfy { $0.contains(#""traceId":"\#(traceId)""#) }, "\(requestLines)")
        #expect(!collector.refusedAny, "the stand-in refused a request: \(collector.log.path)")
    }
}
