import CommonContract
import Contract
import Foundation
import OrdersContract
import PostgresNIO
import PrintingContract
import Testing

@testable import OrdersService

/// Orders against PostgreSQL: payment, idempotency, state changes with their money movements,
/// the ledger and the history.
@Suite("orders: placing, paying, moving and reading orders (PostgreSQL)")
struct OrderHandlerTests {
    @Test("a postcard order is authorized (hold) and paid, priced like its quote, with orders.paid logged")
    func placeAndPay() async throws {
        try await OrdersFixture.with { db in
            let ann = db.user()
            let card = try await db.card(for: ann)
            let quote = try await db.quoting.quote(
                .init(size: "A6", recipients: [.init(country: "SE")], currency: "USD"), actor: ann,
                metadata: .init(requestId: "t"))
            let placed = try await db.handlers.placement.place(
                db.postcard(card: card, currency: "USD"), actor: ann, requestId: "t")
            #expect(placed.state == "paid")
            #expect(placed.total == quote.total)
            let ledger = try await db.ledger(placed.id)
            #expect(ledger.sum == placed.total.amount && ledger.movements == ["authorize": 1])
            #expect(try await db.events(placed.id) == ["orders.paid", "orders.state_changed", "orders.succeeded"])
            let detail = try await db.handlers.history.detail(placed.id, actor: ann)
            #expect(detail.history.map(\.state) == ["pending_payment", "paid"])
            #expect(detail.paymentMethod?.last4 == "4242")
            #expect(detail.rateDate == "2026-11-20" && detail.rate == "1.0823")
        }
    }

    @Test(
        "each test card: declined, insufficient funds and expired give 402 with the reason, a failed order, a zero ledger"
    )
    func testCards() async throws {
        try await OrdersFixture.with { db in
            let ann = db.user()
            for (number, reason) in [
                ("4000000000000002", "card_declined"), ("4000000000009995", "insufficient_funds"),
                ("4000000000000069", "expired_card"),
            ] {
                let card = try await db.card(number, for: ann)
                let key = UUID().uuidString
                let refused = await failure {
                    _ = try await db.handlers.placement.place(db.postcard(key: key, card: card), actor: ann, requestId: "t")
                }
                #expect(refused?.code == .paymentRequired && refused?.reason == reason)
                #expect(refused?.code.httpStatus == 402)
                let again = await failure {
                    _ = try await db.handlers.placement.place(db.postcard(key: key, card: card), actor: ann, requestId: "t")
                }
                #expect(again?.reason == reason, "a retry gets the same answer")
                let orders = try await db.handlers.history.list(.init(), actor: ann).items
                let failed = try #require(orders.first)
                #expect(failed.state == "failed")
                #expect(try await db.ledger(failed.id).sum == 0)
                #expect(
                    try await db.events(failed.id) == [
                        "orders.payment_failed", "orders.state_changed", "orders.failed",
                    ])
                #expect(try await db.noticeReason(failed.id)?.isEmpty == false, "order_failed tells the user why")
            }
            #expect(try await db.handlers.history.list(.init(), actor: ann).items.count == 3, "one failed order per key")
        }
    }

    @Test("the same key and body returns the first result; another body is a 409")
    func idempotency() async throws {
        try await OrdersFixture.with { db in
            let ann = db.user()
            let card = try await db.card(for: ann)
            let request = db.postcard(key: "key-1", card: card)
            let first = try await db.handlers.placement.place(request, actor: ann, requestId: "a")
            let second = try await db.handlers.placement.place(request, actor: ann, requestId: "b")
            #expect(first == second)
            let changed = db.postcard(key: "key-1", card: card, names: ["Bo"])
            #expect(
                await failure { _ = try await db.handlers.placement.place(changed, actor: ann, requestId: "c") }?.code == .conflict)
            // The key is per user: another user may use the same key.
            let bo = db.user()
            let other = try await db.handlers.placement.place(
                db.postcard(key: "key-1", card: try await db.card(for: bo)), actor: bo, requestId: "d")
            #expect(other.id != first.id)
            // Kept at least 24 hours; after that the key is free again.
            db.clock.advance(by: 23 * 3600)
            #expect(try await db.handlers.placement.place(request, actor: ann, requestId: "e") == first)
            db.clock.advance(by: 2 * 3600)
            let later = try await db.handlers.placement.place(request, actor: ann, requestId: "f")
            #expect(later.id != first.id)
        }
    }

    @Test("50 concurrent identical submissions: one order, one authorization, 50 identical answers")
    func concurrentSubmissions() async throws {
        try await OrdersFixture.with { db in
            let ann = db.user()
            let card = try await db.card(for: ann)
            let request = db.postcard(key: UUID().uuidString, card: card)
            let replies = try await withThrowingTaskGroup(of: Orders.PlaceOrder.Reply.self) { group in
                for index in 0..<50 {
                    group.addTask { try await db.handlers.placement.place(request, actor: ann, requestId: "r\(index)") }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(replies.count == 50)
            #expect(Set(replies).count == 1)
            let orders = try await db.handlers.history.list(.init(), actor: ann).items
            #expect(orders.count == 1)
            let ledger = try await db.ledger(try #require(orders.first).id)
            #expect(ledger.movements == ["authorize": 1])
        }
    }

    @Test("printing moves a postcard on: accepted captures, printed, mailed; each state timestamped")
    func happyPath() async throws {
        try await OrdersFixture.with { db in
            let ann = db.user()
            let placed = try await db.handlers.placement.place(
                db.postcard(card: try await db.card(for: ann)), actor: ann, requestId: "t")
            db.clock.advance(by: 60)
            try await db.printing(Printing.Topic.jobAccepted, order: placed.id)
            try await db.printing(Printing.Topic.jobAccepted, order: placed.id)  // a duplicate is harmless
            db.clock.advance(by: 60)
            try await db.printing(Printing.Topic.jobPrinted, order: placed.id)
            db.clock.advance(by: 60)
            try await db.printing(Printing.Topic.jobMailed, order: placed.id)
            let detail = try await db.handlers.history.detail(placed.id, actor: ann)
            #expect(detail.state == "mailed")
            #expect(detail.history.map(\.state) == ["pending_payment", "paid", "in_production", "printed", "mailed"])
            let times = detail.history.map(\.at)
            #expect(times[2].timeIntervalSince(times[1]) == 60 && times[4].timeIntervalSince(times[3]) == 60)
            let ledger = try await db.ledger(placed.id)
            #expect(ledger.sum == placed.total.amount, "the customer paid the total once")
            #expect(ledger.movements == ["authorize": 1, "capture": 2])
            // Too late to cancel once in production.
            #expect(
                await failure { _ = try await db.handlers.transitions.cancel(placed.id, actor: ann, requestId: "t") }?.code
                    == .failedPrecondition)
        }
    }

    @Test("a failed job before capture voids the hold; after capture it refunds; both ledgers sum to zero")
    func failures() async throws {
        try await OrdersFixture.with { db in
            let ann = db.user()
            let card = try await db.card(for: ann)
            let early = try await db.handlers.placement.place(db.postcard(card: card), actor: ann, requestId: "t")
            try await db.printing(Printing.Topic.jobFailed, order: early.id, reason: "image unreadable")
            let earlyDetail = try await db.handlers.history.detail(early.id, actor: ann)
            #expect(earlyDetail.state == "failed")
            #expect(earlyDetail.history.last?.reason == "image unreadable")
            #expect(try await db.ledger(early.id).sum == 0)
            #expect(try await db.ledger(early.id).movements == ["authorize": 1, "void": 1])

            let late = try await db.handlers.placement.place(db.postcard(card: card), actor: ann, requestId: "t")
            try await db.printing(Printing.Topic.jobAccepted, order: late.id)
            try await db.printing(Printing.Topic.jobFailed, order: late.id, reason: "printer jam")
            let lateDetail = try await db.handlers.history.detail(late.id, actor: ann)
            #expect(
                lateDetail.history.map(\.state) == ["pending_payment", "paid", "in_production", "failed", "refunded"])
            #expect(try await db.ledger(late.id).sum == 0)
            #expect(try await db.ledger(late.id).movements == ["authorize": 1, "capture": 2, "refund": 1])
            #expect(
                try await db.events(late.id).suffix(2) == ["orders.state_changed", "orders.state_changed"])

            // An e-card is captured when paid; printing's ecard_failed refunds it.
            let ecard = try await db.handlers.placement.place(
                .init(
                    idempotencyKey: UUID().uuidString, kind: "ecard",
                    ecard: .init(greeting: "Hej", recipients: [.init(name: "Bo", email: "bo@example.org")]),
                    currency: "EUR", paymentMethodId: card), actor: ann, requestId: "t")
            try await db.printing(Printing.Topic.ecardFailed, order: ecard.id, reason: "no such image")
            let ecardDetail = try await db.handlers.history.detail(ecard.id, actor: ann)
            #expect(ecardDetail.history.map(\.state) == ["pending_payment", "paid", "failed", "refunded"])
            #expect(try await db.ledger(ecard.id).sum == 0)
            #expect(try await db.ledger(ecard.id).movements == ["authorize": 1, "capture": 2, "refund": 1])
        }
    }

    @Test(
        "cancel voids a postcard's hold and refunds a captured e-card; orders.canceled is logged; the ledger sums to zero"
    )
    func cancel() async throws {
        try await OrdersFixture.with { db in
            let ann = db.user()
            let card = try await db.card(for: ann)
            let postcard = try await db.handlers.placement.place(db.postcard(card: card), actor: ann, requestId: "t")
            let canceled = try await db.handlers.transitions.cancel(postcard.id, actor: ann, requestId: "t")
            #expect(canceled.state == "canceled")
            #expect(try await db.ledger(postcard.id).sum == 0)
            #expect(try await db.events(postcard.id).contains("orders.canceled"))
            #expect(
                await failure { _ = try await db.handlers.transitions.cancel(postcard.id, actor: ann, requestId: "t") }?.code == nil,
                "canceling twice is a no-op")

            let ecard = try await db.handlers.placement.place(
                .init(
                    idempotencyKey: UUID().uuidString, kind: "ecard",
                    ecard: .init(greeting: "Hej", recipients: [.init(name: "Bo", email: "bo@example.org")]),
                    currency: "JPY", paymentMethodId: card), actor: ann, requestId: "t")
            #expect(ecard.total.currency == "JPY" && ecard.total.amount == 162, "0.99 × 162.73 = 161.1 → 162 yen")
            #expect(try await db.ledger(ecard.id).movements == ["authorize": 1, "capture": 2])
            _ = try await db.handlers.transitions.cancel(ecard.id, actor: ann, requestId: "t")
            #expect(try await db.ledger(ecard.id).sum == 0)
            #expect(try await db.ledger(ecard.id).movements["refund"] == 1)

            // Nobody cancels another user's order.
            #expect(
                await failure { _ = try await db.handlers.transitions.cancel(ecard.id, actor: db.user(), requestId: "t") }?.code
                    == .notFound)
        }
    }

    @Test("a gift order is priced by social: with no social service to ask it is unavailable, and nothing is charged")
    func giftNeedsSocial() async throws {
        try await OrdersFixture.with { db in
            let ann = db.user()
            let key = UUID().uuidString
            let order = KeyedOrder(
                idempotencyKey: key, kind: "gift", gift: .init(itemId: UUID().uuidString, quantity: 2),
                currency: "EUR", paymentMethodId: try await db.card(for: ann))
            #expect(await failure { _ = try await db.handlers.placement.place(order, actor: ann, requestId: "t") }?.code == .unavailable)
            let rows = try await db.client.query(
                "SELECT count(*) FROM orders.orders WHERE user_id = \(UUID(uuidString: ann.userId)!)",
                logger: OrdersFixture.logger)
            for try await count in rows.decode(Int64.self) { #expect(count == 0) }
        }
    }

    @Test("history: newest first, paginated, searchable by recipient and date; nobody reads another's orders")
    func history() async throws {
        try await OrdersFixture.with { db in
            let ann = db.user()
            let card = try await db.card(for: ann)
            var ids: [String] = []
            for index in 0..<5 {
                db.clock.advance(by: 3600)
                let placed = try await db.handlers.placement.place(
                    db.postcard(card: card, names: ["Recipient \(index)"], country: index == 2 ? "JP" : "SE"),
                    actor: ann, requestId: "t")
                ids.append(placed.id)
            }
            let first = try await db.handlers.history.list(.init(limit: 2), actor: ann)
            #expect(first.items.map(\.id) == [ids[4], ids[3]])
            let second = try await db.handlers.history.list(.init(cursor: first.nextCursor, limit: 2), actor: ann)
            #expect(second.items.map(\.id) == [ids[2], ids[1]])
            let third = try await db.handlers.history.list(.init(cursor: second.nextCursor, limit: 2), actor: ann)
            #expect(third.items.map(\.id) == [ids[0]] && third.nextCursor == nil)

            #expect(try await db.handlers.history.list(.init(query: "recipient 3"), actor: ann).items.map(\.id) == [ids[3]])
            #expect(try await db.handlers.history.list(.init(query: "JP"), actor: ann).items.map(\.id) == [ids[2]])
            #expect(try await db.handlers.history.list(.init(query: "storgatan"), actor: ann).items.count == 5)
            let now = db.clock.now()
            let recent = try await db.handlers.history.list(.init(from: now.addingTimeInterval(-2.5 * 3600)), actor: ann)
            #expect(recent.items.map(\.id) == [ids[4], ids[3], ids[2]])
            let older = try await db.handlers.history.list(.init(to: now.addingTimeInterval(-2.5 * 3600)), actor: ann)
            #expect(older.items.map(\.id) == [ids[1], ids[0]])
            #expect(older.items.first?.recipients == ["Recipient 1"])

            let bo = db.user()
            #expect(try await db.handlers.history.list(.init(), actor: bo).items.isEmpty)
            #expect(await failure { _ = try await db.handlers.history.detail(ids[0], actor: bo) }?.code == .notFound)
            #expect(try await db.handlers.history.detail(ids[0], actor: db.user(roles: ["admin"])).id == ids[0])
        }
    }

    @Test("an order at a quote's rate holds while the quote is valid, to its last microsecond; an expired quote is a 422")
    func quotedRate() async throws {
        try await OrdersFixture.with { db in
            let ann = db.user()
            let card = try await db.card(for: ann)
            let quotedAt = db.clock.now().timeIntervalSince1970
            let quote = try await db.quoting.quote(
                .init(size: "A5", recipients: [.init(country: "US")], currency: "GBP"), actor: ann,
                metadata: .init(requestId: "t"))
            var request = db.postcard(card: card, country: "US", currency: "GBP", size: "A5")
            request.quoteId = quote.quoteId
            let placed = try await db.handlers.placement.place(request, actor: ann, requestId: "t")
            #expect(placed.total == quote.total)
            // PostgreSQL judges the expiry at its microsecond: valid just before, expired at it.
            db.clock.set(Date(timeIntervalSince1970: quotedAt + db.quoting.validity - 0.000_001))
            request.idempotencyKey = UUID().uuidString
            #expect(try await db.handlers.placement.place(request, actor: ann, requestId: "t").total == quote.total)
            db.clock.set(Date(timeIntervalSince1970: quotedAt + db.quoting.validity))
            request.idempotencyKey = UUID().uuidString
            let expired = await failure { _ = try await db.handlers.placement.place(request, actor: ann, requestId: "t") }
            #expect(expired?.code == .failedPrecondition && expired?.reason == "quote_expired")
        }
    }

    @Test("bad orders are 400s naming the field; an unknown card is a 404")
    func badOrders() async throws {
        try await OrdersFixture.with { db in
            let ann = db.user()
            let card = try await db.card(for: ann)
            func field(_ request: KeyedOrder) async -> String? {
                do {
                    _ = try await db.handlers.placement.place(request, actor: ann, requestId: "t")
                    return nil
                } catch let error as ServiceError {
                    if case .string(let field) = error.details?["field"] { return "\(error.code):\(field)" }
                    return "\(error.code)"
                } catch {
                    return "\(error)"
                }
            }
            #expect(await field(db.postcard(card: card, size: "A3")) == "invalid_argument:postcard.size")
            #expect(
                await field(db.postcard(card: card, country: "XX"))
                    == "invalid_argument:postcard.recipients[0].address.country")
            #expect(await field(db.postcard(card: card, currency: "XYZ")) == "invalid_argument:currency")
            #expect(await field(db.postcard(key: "", card: card)) == "invalid_argument:Idempotency-Key")
            #expect(await field(db.postcard(card: UUID().uuidString)) == "not_found:paymentMethodId")
            var mixed = db.postcard(card: card)
            mixed.kind = "ecard"
            #expect(await field(mixed) == "invalid_argument:ecard")
        }
    }

    @Test("rates: a new ECB file replaces the rates, a broken one changes nothing; admins only")
    func loadRates() async throws {
        try await OrdersFixture.with { db in
            let admin = db.user(roles: ["admin"])
            // The shipped rates plus one zero-decimal currency, so that tests running alongside
            // see the same prices.
            let sample = try String(contentsOf: OrdersService.sampleRatesURL(), encoding: .utf8)
            let xml = sample.replacingOccurrences(
                of: "<Cube currency='USD'", with: "<Cube currency='CLP' rate='1021.5'/><Cube currency='USD'")
            let loaded = try await db.quoting.load(xml: xml, actor: admin)
            #expect(loaded.currencies.contains(.init(code: "CLP", exponent: 0, rate: "1021.5")))
            let quote = try await db.quoting.quote(
                .init(size: "A6", recipients: [.init(country: "DE")], currency: "CLP"), actor: nil,
                metadata: .init(requestId: "t"))
            // 1.49 × 1021.5 = 1522.035 → 1523; 0.95 × 1021.5 = 970.425 → 971 (whole pesos)
            #expect(quote.total == Money(amount: 1523 + 971, currency: "CLP"))
            #expect(
                await failure { _ = try await db.quoting.load(xml: "<Cube>", actor: admin) }?.code == .invalidArgument)
            #expect(
                try await db.quoting.currencies().currencies.contains { $0.code == "CLP" }, "the last good rates stay")
            // The listing kept encoded follows the rate set it was made from.
            let encoded = try Wire.makeDecoder().decode(
                Orders.ListCurrencies.Reply.self, from: Data(try await db.quoting.currenciesJSON()))
            #expect(encoded == (try await db.quoting.currencies()))
            _ = try await db.quoting.load(xml: sample, actor: admin)
            let reloaded = try Wire.makeDecoder().decode(
                Orders.ListCurrencies.Reply.self, from: Data(try await db.quoting.currenciesJSON()))
            #expect(!reloaded.currencies.contains { $0.code == "CLP" })
        }
    }

    static let testCards = ["4242424242424242", "4000000000000002", "4000000000009995", "4000000000000069"]

    @Test("no card number or CVC is in any table of the orders or events schemas")
    func noCardNumbers() async throws {
        try await OrdersFixture.with { db in
            let ann = db.user()
            for number in Self.testCards {
                let card = try await db.card(number, for: ann)
                _ = try? await db.handlers.placement.place(db.postcard(card: card), actor: ann, requestId: "t")
            }
            let tables = try await db.client.query(
                """
                SELECT table_schema || '.' || table_name FROM information_schema.tables
                WHERE table_schema IN ('orders', 'events') AND table_type = 'BASE TABLE'
                """, logger: OrdersFixture.logger
            ).collect().map { try $0.decode(String.self) }
            #expect(tables.contains("orders.payment_methods") && tables.contains("events.log"))
            let patterns = Self.testCards.map { "%\($0)%" }
            for table in tables {
                let rows = try await db.client.query(
                    "SELECT count(*) FROM \(unescaped: table) t WHERE t::text LIKE ANY(\(patterns))",
                    logger: OrdersFixture.logger)
                for try await count in rows.decode(Int.self) { #expect(count == 0, "\(table)") }
            }
        }
    }
}
