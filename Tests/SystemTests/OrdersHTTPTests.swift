import Foundation
import Logging
import PostgresNIO
import Store
import TestSupport
import Testing

/// Quotes, cards and orders through HTTP: gateway, broker, auth and orders as real processes.
@Suite("orders over HTTP (real processes)", .serialized)
struct OrdersHTTPTests {
    static let cards = ["4242424242424242", "4000000000000002", "4000000000009995", "4000000000000069"]

    /// A signed-in user's requests against the running gateway.
    struct Client: Sendable {
        let port: Int
        let token: String?

        func send(
            _ method: String, _ path: String, json: String? = nil, headers: [String: String] = [:],
            contentType: String = "application/json"
        ) async -> HTTP.Response {
            var headers = headers
            if let token { headers["Authorization"] = "Bearer \(token)" }
            let port = self.port
            let all = headers
            return await offPool {
                HTTP.request(port: port, method: method, path: path, body: json, headers: all, contentType: contentType)
                    ?? HTTP.Response(status: 0, head: "", body: "no answer")
            }
        }
    }

    /// Broker, auth, orders and gateway as processes, ready.
    func start() async throws -> SystemHarness {
        let system = try SystemHarness()
        try system.start("broker")
        try system.start("auth")
        // E-cards priced, so that the refund test has money to give back.
        try system.start("orders", extra: ["ECARD_PRICE": "0.99"])
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth,orders"])
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        try #require(await system.get("/readyz")?.status == 200, "\(system.logs())")
        return system
    }

    /// Registers and signs in a new user.
    func signUp(_ system: SystemHarness, _ name: String) async throws -> (Client, String) {
        let username = "\(name)-\(UUID().uuidString.prefix(8))@example.org"
        let anonymous = Client(port: system.httpPort, token: nil)
        let registered = await anonymous.send(
            "POST", "/v1/auth/register", json: #"{"username": "\#(username)", "password": "Lund2026x"}"#)
        try #require(registered.status == 201, "\(registered.body)")
        return (try await signIn(system, username), username)
    }

    func signIn(_ system: SystemHarness, _ username: String) async throws -> Client {
        let login = await Client(port: system.httpPort, token: nil).send(
            "POST", "/v1/auth/login", json: #"{"username": "\#(username)", "password": "Lund2026x"}"#)
        let token = try #require(json(login.body)["accessToken"] as? String)
        return Client(port: system.httpPort, token: token)
    }

    func json(_ body: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:]
    }

    func field(_ response: HTTP.Response) -> String? {
        (json(response.body)["details"] as? [String: Any])?["field"] as? String
    }

    func order(card: String, name: String = "Ann Lund", currency: String = "EUR") -> String {
        """
        {"kind": "postcard", "currency": "\(currency)", "paymentMethodId": "\(card)",
         "postcard": {"size": "A6", "greeting": "Hej", "edits": [{"type": "crop", "x": 0.1, "y": 0, "width": 0.8, "height": 1}],
           "recipients": [{"name": "\(name)", "address": {"line1": "Storgatan 1", "city": "Lund", "country": "SE"}}]}}
        """
    }

    @Test("quotes, currencies and admin rates: breakdown in minor units, 400 naming the field, 403 for non-admins")
    func quotesAndRates() async throws {
        let system = try await start()
        defer { _ = system.stopBlocking() }
        let anonymous = Client(port: system.httpPort, token: nil)

        let currencies = await anonymous.send("GET", "/v1/currencies")
        #expect(currencies.status == 200)
        #expect(json(currencies.body)["base"] as? String == "EUR")
        #expect(currencies.body.contains("\"JPY\""))

        let quote = await anonymous.send(
            "POST", "/v1/quotes",
            json: #"{"size": "A6", "recipients": [{"country": "SE"}, {"country": "US"}], "currency": "JPY"}"#)
        #expect(quote.status == 200, "\(quote.body)")
        let total = try #require(json(quote.body)["total"] as? [String: Any])
        #expect(total["currency"] as? String == "JPY")
        let lines = try #require(json(quote.body)["lines"] as? [[String: Any]])
        #expect(lines.count == 3)
        #expect(total["amount"] as? Int == lines.compactMap { $0["amount"] as? Int }.reduce(0, +))
        #expect(json(quote.body)["rateDate"] is String)

        let badSize = await anonymous.send(
            "POST", "/v1/quotes", json: #"{"size": "A7", "recipients": [{"country": "SE"}]}"#)
        #expect(badSize.status == 400 && field(badSize) == "size")
        let badCountry = await anonymous.send(
            "POST", "/v1/quotes", json: #"{"size": "A6", "recipients": [{"country": "XX"}]}"#)
        #expect(badCountry.status == 400 && field(badCountry) == "recipients[0].country")

        let (ann, username) = try await signUp(system, "ann")
        // The shipped rates plus one currency, so that other suites running alongside see the
        // same prices.
        let sample = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(
                    "services/orders/OrdersService/Resources/eurofxref-daily.xml"), encoding: .utf8)
        let xml = sample.replacingOccurrences(
            of: "<Cube currency='USD'", with: "<Cube currency='CLP' rate='1021.5'/><Cube currency='USD'")
        #expect(
            await ann.send("PUT", "/v1/admin/currency-rates", json: xml, contentType: "application/xml").status == 403)
        #expect(
            await anonymous.send("PUT", "/v1/admin/currency-rates", json: xml, contentType: "application/xml").status
                == 401)
        try await Self.grantAdmin(username)
        let admin = try await signIn(system, username)
        let loaded = await admin.send("PUT", "/v1/admin/currency-rates", json: xml, contentType: "application/xml")
        #expect(loaded.status == 200, "\(loaded.body)")
        let codes = (json(loaded.body)["currencies"] as? [[String: Any]])?.compactMap { $0["code"] as? String }
        #expect(codes?.contains("CLP") == true)
        let broken = await admin.send("PUT", "/v1/admin/currency-rates", json: "<Cube>", contentType: "application/xml")
        #expect(broken.status == 400)
        let after = await anonymous.send("GET", "/v1/currencies")
        #expect(after.body.contains("\"CLP\""), "the last good rates stay")
    }
    @Test(
        "cards and orders: 201s, idempotent retries (20 at once), 409, 402 per test card, history, cancel, 404 for others; no card number in any log"
    )
    func ordersFlow() async throws {
        let system = try await start()
        defer { _ = system.stopBlocking() }
        let (ann, _) = try await signUp(system, "ann")
        let (bo, _) = try await signUp(system, "bo")

        #expect(await Client(port: system.httpPort, token: nil).send("GET", "/v1/orders").status == 401)

        var cards: [String: String] = [:]
        for number in Self.cards {
            let saved = await ann.send(
                "POST", "/v1/payment-methods",
                json: #"{"number": "\#(number)", "expMonth": 12, "expYear": 2030, "cvc": "123"}"#)
            #expect(saved.status == 201, "\(saved.body)")
            #expect(json(saved.body)["last4"] as? String == String(number.suffix(4)))
            #expect(json(saved.body)["brand"] as? String == "visa")
            cards[number] = json(saved.body)["id"] as? String
        }
        let badCard = await ann.send(
            "POST", "/v1/payment-methods",
            json: #"{"number": "4242424242424241", "expMonth": 12, "expYear": 2030, "cvc": "123"}"#)
        #expect(badCard.status == 400 && field(badCard) == "number")
        let listed = await ann.send("GET", "/v1/payment-methods")
        #expect((json(listed.body)["items"] as? [Any])?.count == 4)
        #expect(json(listed.body)["nextCursor"] == nil)
        // A page at a time: 3, then the last one, the same cards in the same order.
        let firstPage = await ann.send("GET", "/v1/payment-methods?limit=3")
        let next = try #require(json(firstPage.body)["nextCursor"] as? String)
        let lastPage = await ann.send("GET", "/v1/payment-methods?limit=3&cursor=\(next)")
        #expect(json(lastPage.body)["nextCursor"] == nil)
        let ids = { (body: String) in
            ((json(body)["items"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
        }
        #expect(ids(firstPage.body) + ids(lastPage.body) == ids(listed.body))
        #expect(ids(firstPage.body).count == 3)
        #expect(await ann.send("GET", "/v1/payment-methods?cursor=nope").status == 400)
        let good = try #require(cards["4242424242424242"])

        #expect(await ann.send("POST", "/v1/orders", json: order(card: good)).status == 400, "no Idempotency-Key")
        let key = UUID().uuidString
        let first = await ann.send("POST", "/v1/orders", json: order(card: good), headers: ["Idempotency-Key": key])
        #expect(first.status == 201, "\(first.body)")
        #expect(json(first.body)["state"] as? String == "paid")
        let orderId = try #require(json(first.body)["id"] as? String)
        let retry = await ann.send("POST", "/v1/orders", json: order(card: good), headers: ["Idempotency-Key": key])
        #expect(retry.status == 201 && json(retry.body)["id"] as? String == orderId)
        let changed = await ann.send(
            "POST", "/v1/orders", json: order(card: good, name: "Bo"), headers: ["Idempotency-Key": key])
        #expect(changed.status == 409)

        // A phone that lost its connection resends the same request many times at once.
        let burstKey = UUID().uuidString
        let body = order(card: good, name: "Cy Berg", currency: "USD")
        let burst = await withTaskGroup(of: HTTP.Response.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await ann.send("POST", "/v1/orders", json: body, headers: ["Idempotency-Key": burstKey])
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(burst.allSatisfy { $0.status == 201 }, "\(burst.map(\.status))")
        #expect(Set(burst.compactMap { json($0.body)["id"] as? String }).count == 1)

        for (number, reason) in [
            ("4000000000000002", "card_declined"), ("4000000000009995", "insufficient_funds"),
            ("4000000000000069", "expired_card"),
        ] {
            let refused = await ann.send(
                "POST", "/v1/orders", json: order(card: cards[number]!), headers: ["Idempotency-Key": UUID().uuidString]
            )
            #expect(refused.status == 402, "\(refused.body)")
            #expect((json(refused.body)["details"] as? [String: Any])?["reason"] as? String == reason)
        }

        let history = await ann.send("GET", "/v1/orders?limit=2")
        #expect(history.status == 200)
        #expect((json(history.body)["items"] as? [Any])?.count == 2)
        #expect(json(history.body)["nextCursor"] is String)
        let search = await ann.send("GET", "/v1/orders?q=cy%20berg")
        #expect((json(search.body)["items"] as? [[String: Any]])?.count == 1)
        let future = await ann.send("GET", "/v1/orders?from=2999-01-01T00:00:00Z")
        #expect((json(future.body)["items"] as? [Any])?.count == 0)

        let detail = await ann.send("GET", "/v1/orders/\(orderId)")
        #expect(detail.status == 200, "\(detail.body)")
        let states = (json(detail.body)["history"] as? [[String: Any]])?.compactMap { $0["state"] as? String }
        #expect(states == ["pending_payment", "paid"])
        #expect(await bo.send("GET", "/v1/orders/\(orderId)").status == 404)
        #expect(await bo.send("POST", "/v1/orders/\(orderId)/cancel").status == 404)

        let canceled = await ann.send("POST", "/v1/orders/\(orderId)/cancel")
        #expect(canceled.status == 200 && json(canceled.body)["state"] as? String == "canceled")
        let failedId = try #require(
            (json(await ann.send("GET", "/v1/orders?limit=1").body)["items"] as? [[String: Any]])?.first?["id"]
                as? String)
        #expect(
            await ann.send("POST", "/v1/orders/\(failedId)/cancel").status == 422, "a failed order cannot be canceled")

        // Printing's job events move an order on (published here as printing would).
        let printed = await ann.send(
            "POST", "/v1/orders", json: order(card: good, name: "Di Print"),
            headers: ["Idempotency-Key": UUID().uuidString])
        let printedId = try #require(json(printed.body)["id"] as? String)
        try await Self.publish("printing.job_accepted", order: printedId)
        try await Self.publish("printing.job_failed", order: printedId)
        var printedStates: [String] = []
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, printedStates.last != "refunded" {
            let detail = await ann.send("GET", "/v1/orders/\(printedId)")
            printedStates =
                (json(detail.body)["history"] as? [[String: Any]])?.compactMap { $0["state"] as? String } ?? []
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(printedStates == ["pending_payment", "paid", "in_production", "failed", "refunded"])

        #expect(await ann.send("DELETE", "/v1/payment-methods/\(good)").status == 204)
        #expect(await ann.send("DELETE", "/v1/payment-methods/\(good)").status == 404)

        _ = await system.stopAll()
        let logs = system.logs()
        for number in Self.cards { #expect(!logs.contains(number), "a card number in the logs") }
        #expect(try await Self.tablesHolding(Self.cards) == [], "a card number in the database")
    }

    /// The tables (`schema.table`) of the services' schemas with a row whose text holds one of
    /// `needles`. (Other schemas belong to tests that create and drop tables as they run.)
    static func tablesHolding(_ needles: [String]) async throws -> [String] {
        var found: [String] = []
        try await withDatabase { client, logger in
            let rows = try await client.query(
                """
                SELECT table_schema, table_name FROM information_schema.tables
                WHERE table_type = 'BASE TABLE'
                  AND table_schema IN ('auth', 'orders', 'printing', 'routing', 'notify', 'events')
                """, logger: logger)
            var tables: [(String, String)] = []
            for try await (schema, table) in rows.decode((String, String).self) { tables.append((schema, table)) }
            for (schema, table) in tables {
                for needle in needles {
                    // Identifiers come from the catalog, quoted; the needle is a bound parameter.
                    let sql = "SELECT count(*) FROM \"\(schema)\".\"\(table)\" t WHERE t::text LIKE '%' || $1 || '%'"
                    var bindings = PostgresBindings()
                    bindings.append(needle)
                    let counted = try await client.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
                    for try await count in counted.decode(Int.self) where count > 0 {
                        found.append("\(schema).\(table)")
                    }
                }
            }
        }
        return found
    }

    /// Appends a printing job event to the event log, as the printing service would.
    static func publish(_ topic: String, order: String) async throws {
        try await withDatabase { client, logger in
            let payload = #"{"orderId": "\#(order)"}"#
            try await client.query(
                """
                INSERT INTO events.log (id, topic, producer, payload, request_id, created_at)
                VALUES (\(UUID()), \(topic), 'printing', \(payload)::jsonb, NULL, now())
                """, logger: logger)
        }
    }

    @Test("admin refunds over HTTP: 200 partial then the rest, the same key answers the same refund, 403, 400, 422")
    func refundsOverHTTP() async throws {
        let system = try await start()
        defer { _ = system.stopBlocking() }
        let (ann, _) = try await signUp(system, "ann")
        let (_, operator_) = try await signUp(system, "ops")
        try await Self.grantAdmin(operator_)
        let admin = try await signIn(system, operator_)
        let saved = await ann.send(
            "POST", "/v1/payment-methods",
            json: #"{"number": "4242424242424242", "expMonth": 12, "expYear": 2030, "cvc": "123"}"#)
        let card = try #require(json(saved.body)["id"] as? String)
        let ecard =
            #"{"kind": "ecard", "ecard": {"recipients": [{"email": "bo@example.org"}]}, "currency": "EUR", "paymentMethodId": "\#(card)"}"#
        let placed = await ann.send("POST", "/v1/orders", json: ecard, headers: ["Idempotency-Key": UUID().uuidString])
        #expect(placed.status == 201, "\(placed.body)")
        let id = try #require(json(placed.body)["id"] as? String)
        let path = "/v1/admin/orders/\(id)/refund"
        #expect(await ann.send("POST", path, json: "{}", headers: ["Idempotency-Key": "k1"]).status == 403)
        #expect(await admin.send("POST", path, json: "{}").status == 400, "no Idempotency-Key")
        let partial = await admin.send(
            "POST", path, json: #"{"amount": 10, "reason": "late"}"#, headers: ["Idempotency-Key": "k1"])
        #expect(partial.status == 200, "\(partial.body)")
        #expect((json(partial.body)["refundedTotal"] as? [String: Any])?["amount"] as? Int == 10)
        let again = await admin.send(
            "POST", path, json: #"{"amount": 10, "reason": "late"}"#, headers: ["Idempotency-Key": "k1"])
        #expect(json(again.body)["refundId"] as? String == json(partial.body)["refundId"] as? String)
        #expect(
            await admin.send("POST", path, json: #"{"amount": 100000}"#, headers: ["Idempotency-Key": "k2"]).status
                == 422)
        let tokenized = await ann.send(
            "POST", "/v1/payment-methods/tokenized", json: #"{"paymentMethodId": "pm_card_visa"}"#)
        #expect(tokenized.status == 422, "the sandbox tokenizes on the server: \(tokenized.body)")
        #expect(field(tokenized) == "paymentMethodId")
        let rest = await admin.send("POST", path, json: "{}", headers: ["Idempotency-Key": "k3"])
        #expect(rest.status == 200, "\(rest.body)")
        #expect(
            (json(rest.body)["refundedTotal"] as? [String: Any])?["amount"] as? Int
                == (json(placed.body)["total"] as? [String: Any])?["amount"] as? Int)
    }

    @Test(
        "a card the app tokenized with Stripe's SDK, saved by its pm_ id through HTTP (201, 400, 401, 404), then two orders paid with it; test cards (201, 503)"
    )
    func tokenizedOverHTTP() async throws {
        let port = try SystemHarness.freePort()
        let (standin, log) = try await PythonStandin.start(
            "stripe-standin", port: port, environment: ["STANDIN_API_KEY": "sk_test_standin"],
            banner: "stripe-standin on")
        defer {
            // SIGKILL, as the other stand-ins' helpers: a child of the test process may not see SIGTERM.
            kill(standin.processIdentifier, SIGKILL)
            standin.waitUntilExit()
            try? FileManager.default.removeItem(at: log)
        }
        let system = try SystemHarness()
        defer { _ = system.stopBlocking() }
        try system.start("broker")
        try system.start("auth")
        try system.start(
            "orders",
            extra: [
                "PAYMENT_PROVIDER": "stripe", "STRIPE_API_KEY": "sk_test_standin",
                "STRIPE_BASE_URL": "http://127.0.0.1:\(port)",
            ])
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth,orders"])
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        try #require(await system.get("/readyz")?.status == 200, "\(system.logs())")
        // What the app's Stripe SDK does with the buyer's card: the number goes to Stripe only.
        let made = await offPool {
            HTTP.request(
                port: port, method: "POST", path: "/v1/payment_methods",
                body: "type=card&card%5Bnumber%5D=5555555555554444&card%5Bexp_month%5D=11&card%5Bexp_year%5D=2031",
                headers: ["Authorization": "Bearer sk_test_standin"], contentType: "application/x-www-form-urlencoded")
        }
        let pm = try #require(json(made?.body ?? "")["id"] as? String, "\(made?.body ?? "no answer")")
        let (ann, _) = try await signUp(system, "sdk")
        let path = "/v1/payment-methods/tokenized"
        #expect(
            await Client(port: system.httpPort, token: nil).send("POST", path, json: #"{"paymentMethodId": "\#(pm)"}"#)
                .status == 401)
        let bad = await ann.send("POST", path, json: #"{"paymentMethodId": "4242424242424242"}"#)
        #expect(bad.status == 400 && field(bad) == "paymentMethodId", "\(bad.body)")
        let unknown = await ann.send("POST", path, json: #"{"paymentMethodId": "pm_unknown"}"#)
        #expect(unknown.status == 404 && field(unknown) == "paymentMethodId", "\(unknown.body)")
        let saved = await ann.send("POST", path, json: #"{"paymentMethodId": "\#(pm)"}"#)
        #expect(saved.status == 201, "\(saved.body)")
        #expect(json(saved.body)["brand"] as? String == "mastercard" && json(saved.body)["last4"] as? String == "4444")
        let card = try #require(json(saved.body)["id"] as? String)
        let placed = await ann.send(
            "POST", "/v1/orders", json: order(card: card), headers: ["Idempotency-Key": UUID().uuidString])
        #expect(placed.status == 201, "\(placed.body)")
        #expect(json(placed.body)["state"] as? String == "paid")
        // The same card pays again: it was attached to Ann's Stripe Customer when saved (the
        // stand-in, like Stripe, refuses a second payment with a PaymentMethod that is not).
        let again = await ann.send(
            "POST", "/v1/orders", json: order(card: card), headers: ["Idempotency-Key": UUID().uuidString])
        #expect(again.status == 201 && json(again.body)["state"] as? String == "paid", "\(again.body)")
        // A PaymentMethod that already paid once without a Customer cannot be saved: 400.
        let other = await offPool {
            HTTP.request(
                port: port, method: "POST", path: "/v1/payment_methods",
                body: "type=card&card%5Bnumber%5D=4242424242424242&card%5Bexp_month%5D=11&card%5Bexp_year%5D=2031",
                headers: ["Authorization": "Bearer sk_test_standin"], contentType: "application/x-www-form-urlencoded")
        }
        let spentPM = try #require(json(other?.body ?? "")["id"] as? String)
        _ = await offPool {
            HTTP.request(
                port: port, method: "POST", path: "/v1/payment_intents",
                body: "amount=100&currency=eur&confirm=true&payment_method=\(spentPM)",
                headers: ["Authorization": "Bearer sk_test_standin"], contentType: "application/x-www-form-urlencoded")
        }
        let spent = await ann.send("POST", path, json: #"{"paymentMethodId": "\#(spentPM)"}"#)
        #expect(spent.status == 400 && field(spent) == "paymentMethodId", "\(spent.body)")
        // A test card through POST /v1/payment-methods is attached too (201); 503 when Stripe
        // does not answer the attach (three 500s: the first try and the two retries).
        let testCard = #"{"number": "4242424242424242", "expMonth": 12, "expYear": 2030, "cvc": "123"}"#
        let added = await ann.send("POST", "/v1/payment-methods", json: testCard)
        #expect(added.status == 201, "\(added.body)")
        _ = await offPool {
            HTTP.request(port: port, method: "POST", path: "/_standin/faults", body: #"{"fail_5xx": 3}"#)
        }
        let silent = await ann.send("POST", "/v1/payment-methods", json: testCard)
        #expect(silent.status == 503, "\(silent.body)")
    }

    static func withDatabase(
        url: String = SystemHarness.databaseURL, _ body: (PostgresClient, Logger) async throws -> Void
    ) async throws {
        var logger = Logger(label: "system-tests")
        logger.logLevel = .error
        let client = PostgresClient(
            configuration: try DatabaseSettings(url: url).clientConfiguration(),
            backgroundLogger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            try await body(client, logger)
            group.cancelAll()
        }
    }

    /// Gives `username` the admin role (an operator's job; there is no endpoint for it).
    static func grantAdmin(_ username: String) async throws {
        try await withDatabase { client, logger in
            try await client.query(
                "UPDATE auth.users SET roles = ARRAY['user', 'admin'] WHERE username = \(username.lowercased())",
                logger: logger)
        }
    }
}
