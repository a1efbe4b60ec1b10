import AsyncHTTPClient
import Contract
import Foundation
import NIOCore
import OrdersContract
import PostgresNIO
import PrintingContract
import Testing

@testable import OrdersService

/// Refunds left pending finished by the sweeper, refused refunds and captures ended for good,
/// and the buyer's notices of refunds and disputes (PostgreSQL, the sandbox).
@Suite("orders: refund recovery, refused captures, buyer notices (PostgreSQL)")
struct PaymentRecoveryTests {
    static let ecard = Orders.EcardDetails(greeting: "Hej", recipients: [.init(name: "Bo", email: "bo@example.org")])

    static func ecardOrder(_ db: OrdersFixture, _ buyer: Actor) async throws -> Orders.PlaceOrder.Reply {
        try await db.handlers.placement.place(
            KeyedOrder(
                idempotencyKey: UUID().uuidString, kind: "ecard", ecard: ecard, currency: "EUR",
                paymentMethodId: try await db.card(for: buyer)), actor: buyer, requestId: "t")
    }

    @Test("a refund whose answer was lost, or that never reached the provider, is finished by the sweeper, once")
    func refundSwept() async throws {
        for fault in [FaultyProvider.Fault.after("refund"), .before("refund")] {
            try await OrdersFixture.with(provider: { FaultyProvider(sandbox: $0, fault: fault) }) { db in
                let ann = db.user()
                let admin = db.user(roles: ["admin"])
                let order = try await Self.ecardOrder(db, ann)
                let lost = await failure {
                    _ = try await db.handlers.refunds.refund(.init(id: order.id, amount: 7), idempotencyKey: "r", actor: admin)
                }
                #expect(lost?.code == .unavailable, "\(fault)")
                let sweeper = db.handlers(provider: db.sandbox)
                let id = UUID(uuidString: order.id)!
                _ = try await sweeper.refunds.sweepRefunds()
                #expect(try await db.refundStatuses(id) == ["pending"], "not due before the recovery window")
                db.clock.advance(by: 61)
                _ = try await sweeper.refunds.sweepRefunds()
                let ledger = try await db.ledger(order.id)
                #expect(ledger.movements["refund"] == 1 && ledger.sum == order.total.amount - 7, "\(fault)")
                #expect(try await db.sandboxOperations(id).filter { $0 == "refund" }.count == 1, "\(fault)")
                #expect(try await db.refundStatuses(id) == ["done"])
                #expect(try await db.notices(order.id, Orders.OrderRefunded.topic) == ["0.07 EUR"])
                let again = try await sweeper.refunds.refund(.init(id: order.id, amount: 7), idempotencyKey: "r", actor: admin)
                #expect(again.refundedTotal.amount == 7, "the admin's retry answers the refund the sweeper made")
            }
        }
    }

    @Test("a refund the provider refuses ends failed (422, also on a retry); its amount is free again")
    func refundRefused() async throws {
        try await OrdersFixture.with(provider: { RefusingRefunds(sandbox: $0) }) { db in
            let ann = db.user()
            let admin = db.user(roles: ["admin"])
            let order = try await Self.ecardOrder(db, ann)
            for _ in 0..<2 {
                let refused = await failure {
                    _ = try await db.handlers.refunds.refund(.init(id: order.id), idempotencyKey: "all", actor: admin)
                }
                #expect(refused?.code == .failedPrecondition)
            }
            let id = UUID(uuidString: order.id)!
            #expect(try await db.refundStatuses(id) == ["failed"])
            db.clock.advance(by: 61)
            _ = try await db.handlers.refunds.sweepRefunds()
            #expect(try await db.refundStatuses(id) == ["failed"], "a refused refund is not retried")
            let made = try await db.handlers(provider: db.sandbox).refunds.refund(
                .init(id: order.id), idempotencyKey: "again", actor: admin)
            #expect(made.amount.amount == order.total.amount, "the refused amount is not held as in flight")
            #expect(try await db.ledger(order.id).sum == 0)
        }
    }

    @Test("a capture the provider refuses is not retried: the hold is voided, the order failed, the ledger zero")
    func captureRefused() async throws {
        try await OrdersFixture.with(provider: { RefusingCaptures(sandbox: $0) }) { db in
            let ann = db.user()
            let placed = try await db.handlers.placement.place(
                db.postcard(card: try await db.card(for: ann)), actor: ann, requestId: "t")
            try await db.printing(Printing.Topic.jobAccepted, order: placed.id)
            let id = UUID(uuidString: placed.id)!
            #expect(try await db.state(id) == "failed")
            let ledger = try await db.ledger(placed.id)
            #expect(ledger.sum == 0 && ledger.movements == ["authorize": 1, "void": 1])
            #expect(try await db.sandboxOperations(id) == ["authorize", "void"])
            #expect(try await db.events(placed.id).last == Orders.Topic.stateChanged)
            #expect(try await db.paymentDue(id) == false, "nothing left due: no capture is asked again")
            db.clock.advance(by: 3600)
            try await db.handlers.payments.settle(id)
            #expect(try await db.ledger(placed.id).movements == ["authorize": 1, "void": 1])
            #expect(try await db.sandboxOperations(id) == ["authorize", "void"])
        }
    }

    @Test("the buyer's notices: refunds (operator's and the processor's) and disputes, with the amount as read")
    func notices() async throws {
        try await OrdersFixture.with { db in
            let ann = db.user()
            let admin = db.user(roles: ["admin"])
            let order = try await Self.ecardOrder(db, ann)
            _ = try await db.handlers.refunds.refund(.init(id: order.id, amount: 25), idempotencyKey: "a", actor: admin)
            let authorization = try #require(try await db.authorization(UUID(uuidString: order.id)!))
            try await db.handlers.refunds.recordProcessorRefund(intent: authorization, refunded: 40, reference: "re_x")
            try await db.handlers.payments.recordDispute(intent: authorization, reason: "fraudulent")
            try await db.handlers.payments.recordDispute(intent: authorization, reason: "fraudulent")
            #expect(try await db.notices(order.id, Orders.OrderRefunded.topic) == ["0.25 EUR", "0.15 EUR"])
            #expect(try await db.notices(order.id, Orders.OrderDisputed.topic) == [ann.userId], "once per dispute")
        }
    }

    @Test("amounts as a buyer reads them, in two, zero and three decimals")
    func display() {
        #expect(CurrencyTable.display(1250, "EUR") == "12.50 EUR")
        #expect(CurrencyTable.display(7, "EUR") == "0.07 EUR")
        #expect(CurrencyTable.display(1200, "JPY") == "1200 JPY")
        #expect(CurrencyTable.display(1005, "KWD") == "1.005 KWD")
        #expect(CurrencyTable.display(-250, "SEK") == "-2.50 SEK")
    }
}

/// The same against the Stripe stand-in: a refund finished by asking Stripe for the refund's
/// key, a capture refused after the intent was canceled at Stripe, and cards the app tokenized.
@Suite("orders: refund recovery, refused captures and tokenized cards through Stripe (stand-in, PostgreSQL)")
struct StripeRecoveryTests {
    @Test("a refund Stripe made but whose answer was lost is found by its key and written once")
    func refundFound() async throws {
        try await StripeStandin.with { standin in
            let stripe = StripeProviderTests.provider(standin, timeout: .seconds(1), retries: 0)
            try await OrdersFixture.with(provider: { _ in stripe }) { db in
                let ann = db.user()
                let admin = db.user(roles: ["admin"])
                let order = try await PaymentRecoveryTests.ecardOrder(db, ann)
                try await standin.control("faults", ["fail_5xx": 1, "fail_after": true])
                let lost = await failure {
                    _ = try await db.handlers.refunds.refund(.init(id: order.id, amount: 9), idempotencyKey: "r", actor: admin)
                }
                #expect(lost?.code == .unavailable)
                db.clock.advance(by: 61)
                _ = try await db.handlers.refunds.sweepRefunds()
                #expect(try await db.refundStatuses(UUID(uuidString: order.id)!) == ["done"])
                #expect(try await db.ledger(order.id).sum == order.total.amount - 9)
                #expect((try await standin.read("stats")["refunded"] as? Int) == 9, "one refund at Stripe")
                let charges = try #require(try await standin.read("charges")["data"] as? [[String: Any]])
                #expect(charges.count == 1 && charges.first?["refunded"] as? Int == 9)
            }
        }
    }

    @Test("a hold Stripe canceled (expired) cannot be captured: the order fails once, released, ledger zero")
    func captureRefused() async throws {
        try await StripeStandin.with { standin in
            let stripe = StripeProviderTests.provider(standin)
            try await OrdersFixture.with(provider: { _ in stripe }) { db in
                let ann = db.user()
                let placed = try await db.handlers.placement.place(
                    db.postcard(card: try await db.card(for: ann)), actor: ann, requestId: "t")
                let id = UUID(uuidString: placed.id)!
                let intent = try #require(try await db.authorization(id))
                _ = try await standin.stripe("/v1/payment_intents/\(intent)/cancel", [:])
                try await db.printing(Printing.Topic.jobAccepted, order: placed.id)
                #expect(try await db.state(id) == "failed")
                let ledger = try await db.ledger(placed.id)
                #expect(ledger.sum == 0 && ledger.movements == ["authorize": 1, "void": 1])
                #expect(try await db.paymentDue(id) == false, "nothing left due: no capture is asked again")
            }
        }
    }

    @Test("a card the app tokenized with Stripe's SDK is saved by its pm_ id and pays; unknown 404, bad 400")
    func tokenized() async throws {
        try await StripeStandin.with { standin in
            let stripe = StripeProviderTests.provider(standin)
            try await OrdersFixture.with(provider: { _ in stripe }) { db in
                let ann = db.user()
                let wallet = PaymentMethodHandler(
                    store: PaymentMethodStore(client: db.client, logger: OrdersFixture.logger),
                    provider: stripe, clock: db.clock)
                let made = try await standin.stripe(
                    "/v1/payment_methods",
                    [
                        "type": "card", "card[number]": "5555555555554444", "card[exp_month]": "11",
                        "card[exp_year]": "2031", "card[cvc]": "123",
                    ])
                let pm = try #require(made["id"] as? String)
                let saved = try await wallet.addTokenized(.init(paymentMethodId: pm), actor: ann)
                #expect(saved.brand == "mastercard" && saved.last4 == "4444" && saved.expYear == 2031)
                let order = try await db.handlers.placement.place(db.postcard(card: saved.id), actor: ann, requestId: "t")
                #expect(order.state == "paid")
                let intents = try #require(try await standin.read("intents")["data"] as? [[String: Any]])
                #expect(intents.first?["payment_method"] as? String == pm)
                let unknown = await failure {
                    _ = try await wallet.addTokenized(.init(paymentMethodId: "pm_nothing"), actor: ann)
                }
                #expect(unknown?.code == .notFound)
                let bad = await failure {
                    _ = try await wallet.addTokenized(.init(paymentMethodId: "4242424242424242"), actor: ann)
                }
                #expect(bad?.code == .invalidArgument)
                let sandbox = PaymentMethodHandler(
                    store: PaymentMethodStore(client: db.client, logger: OrdersFixture.logger), provider: db.sandbox,
                    clock: db.clock)
                let wrongMode = await failure {
                    _ = try await sandbox.addTokenized(.init(paymentMethodId: pm), actor: ann)
                }
                #expect(wrongMode?.code == .failedPrecondition)
                let declining = try await standin.stripe(
                    "/v1/payment_methods",
                    [
                        "type": "card", "card[number]": "4000000000000002", "card[exp_month]": "11",
                        "card[exp_year]": "2031", "card[cvc]": "123",
                    ])
                let refusedCard = try await wallet.addTokenized(
                    .init(paymentMethodId: try #require(declining["id"] as? String)), actor: ann)
                let refused = await failure {
                    _ = try await db.handlers.placement.place(db.postcard(card: refusedCard.id), actor: ann, requestId: "t")
                }
                #expect(refused?.code == .paymentRequired && refused?.reason == "card_declined")
            }
        }
    }
}

extension OrdersFixture {
    /// The statuses of an order's refunds, oldest first.
    func refundStatuses(_ id: UUID) async throws -> [String] {
        let rows = try await client.query(
            "SELECT status FROM orders.refunds WHERE order_id = \(id) ORDER BY created_at, id", logger: Self.logger)
        var statuses: [String] = []
        for try await status in rows.decode(String.self) { statuses.append(status) }
        return statuses
    }

    /// Whether the sweeper still has work due on an order.
    func paymentDue(_ id: UUID) async throws -> Bool {
        let rows = try await client.query(
            "SELECT payment_due_at IS NOT NULL FROM orders.orders WHERE id = \(id)", logger: Self.logger)
        for try await due in rows.decode(Bool.self) { return due }
        return false
    }

    /// An order's authorization at the provider.
    func authorization(_ id: UUID) async throws -> String? {
        let rows = try await client.query(
            "SELECT authorization_id FROM orders.orders WHERE id = \(id)", logger: Self.logger)
        for try await found in rows.decode(String?.self) { return found }
        return nil
    }

    /// The buyer's notices of `topic` for an order, in log order: a refund notice's amount, a
    /// dispute notice's user.
    func notices(_ orderId: String, _ topic: String) async throws -> [String] {
        let rows = try await client.query(
            """
            SELECT coalesce(payload->>'amount', payload->>'userId') FROM events.log
            WHERE topic = \(topic) AND payload->>'orderId' = \(orderId) ORDER BY seq
            """, logger: Self.logger)
        var found: [String] = []
        for try await value in rows.decode(String.self) { found.append(value) }
        return found
    }
}

extension StripeStandin {
    /// A call to the stand-in's Stripe API with the test key, as the app's SDK (or Stripe
    /// itself) would make it; the JSON answer.
    func stripe(_ path: String, _ form: [String: String]) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(Self.apiKey)")
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let body = form.map {
            "\(StripeClient.formEscape($0.key))=\(StripeClient.formEscape($0.value))"
        }
        request.body = .bytes(ByteBuffer(string: body.joined(separator: "&")))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let data = try await response.body.collect(upTo: 1 << 24)
        return (try JSONSerialization.jsonObject(with: Data(buffer: data)) as? [String: Any]) ?? [:]
    }
}
