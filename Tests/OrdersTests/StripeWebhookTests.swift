import Contract
import Foundation
import OrdersContract
import Testing

@testable import OrdersService

/// `POST /v1/webhooks/stripe` as orders handles it: the signature, duplicates, and the orders
/// moved by each event.
@Suite("orders: Stripe webhooks")
struct StripeWebhookTests {
    static let secret = "whsec_test_secret"
    static let signature = StripeSignature(secret: secret, tolerance: 300)

    @Test("the signature: HMAC-SHA256 of t.payload; tampering, another secret, an old or future t, no header refused")
    func signatureRule() throws {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let t = Int64(now.timeIntervalSince1970)
        let payload = #"{"id":"evt_1","type":"ping"}"#
        let header = Self.signature.header(payload: payload, timestamp: t)
        try Self.signature.verify(payload: payload, header: header, now: now)
        try Self.signature.verify(
            payload: payload, header: "t=\(t),v1=00ff,\(header.dropFirst("t=\(t),".count))", now: now)
        func refused(_ payload: String, _ header: String?, at date: Date = now) -> Bool {
            do {
                try Self.signature.verify(payload: payload, header: header, now: date)
                return false
            } catch {
                return error.code == .invalidArgument && error.details?["field"] == .string("Stripe-Signature")
            }
        }
        #expect(refused(payload + " ", header))
        #expect(
            refused(
                payload, StripeSignature(secret: "whsec_other", tolerance: 300).header(payload: payload, timestamp: t)))
        #expect(refused(payload, header, at: now.addingTimeInterval(301)), "a replay after the tolerance")
        #expect(refused(payload, header, at: now.addingTimeInterval(-301)))
        #expect(refused(payload, nil) && refused(payload, "v1=abc") && refused(payload, "t=\(t)"))
    }

    func deliver(_ hooks: StripeWebhookHandler, _ event: [String: Any], at now: Date) async throws
        -> Orders.StripeWebhook.Reply
    {
        let payload = String(decoding: try JSONSerialization.data(withJSONObject: event), as: UTF8.self)
        return try await hooks.receive(
            .init(
                payload: payload,
                signature: Self.signature.header(payload: payload, timestamp: Int64(now.timeIntervalSince1970))))
    }

    @Test("payment_intent events finish a 3-D Secure order at once; a repeated event id is ignored; bad signatures 400")
    func paymentIntentEvents() async throws {
        try await StripeStandin.with { standin in
            let stripe = StripeProviderTests.provider(standin)
            try await OrdersFixture.with(provider: { _ in stripe }) { db in
                let hooks = db.webhooks(signature: Self.signature)
                let ann = db.user()
                let request = db.postcard(card: try await db.card("4000002760003184", for: ann))
                _ = await failure { _ = try await db.handlers.placement.place(request, actor: ann, requestId: "t") }
                let id = try #require(try await db.orderIds(of: ann).first)
                let intents = try #require(try await standin.read("intents")["data"] as? [[String: Any]])
                let intent = try #require(
                    intents.first {
                        ($0["metadata"] as? [String: String])?["backplane_key"]
                            == PaymentStep.key("authorize", order: id)
                    })
                try await standin.control("authenticate", ["payment_intent": intent["id"] as! String, "succeed": true])
                let event: [String: Any] = [
                    "id": "evt_\(UUID().uuidString)", "type": "payment_intent.amount_capturable_updated",
                    "data": [
                        "object": ["id": intent["id"] as! String, "metadata": intent["metadata"] as! [String: String]]
                    ],
                ]
                let first = try await deliver(hooks, event, at: db.clock.now())
                #expect(first == .init(received: true, duplicate: false))
                #expect(try await db.state(id) == "paid", "finished without waiting for the sweeper")
                #expect(try await db.handlers.placement.place(request, actor: ann, requestId: "t").state == "paid")
                #expect(try await deliver(hooks, event, at: db.clock.now()) == .init(received: true, duplicate: true))
                #expect(try await db.ledger(id.uuidString.lowercased()).movements == ["authorize": 1])

                let payload = String(decoding: try JSONSerialization.data(withJSONObject: event), as: UTF8.self)
                let forged = await failure {
                    _ = try await hooks.receive(.init(payload: payload, signature: "t=1,v1=00"))
                }
                #expect(forged?.code == .invalidArgument)
                let unconfigured = await failure {
                    _ = try await db.webhooks(signature: nil).receive(
                        .init(payload: payload, signature: nil))
                }
                #expect(unconfigured?.code == .notFound)
            }
        }
    }

    @Test("charge.refunded writes a refund made at Stripe once, a cancel refunds the rest; a dispute marks the order")
    func refundsAndDisputes() async throws {
        try await OrdersFixture.with { db in
            let hooks = db.webhooks(signature: Self.signature)
            let ann = db.user()
            let placed = try await db.handlers.placement.place(
                KeyedOrder(
                    idempotencyKey: UUID().uuidString, kind: "ecard",
                    ecard: .init(greeting: "Hej", recipients: [.init(name: "Bo", email: "bo@example.org")]),
                    currency: "EUR", paymentMethodId: try await db.card(for: ann)), actor: ann, requestId: "t")
            let rows = try await db.client.query(
                "SELECT authorization_id FROM orders.orders WHERE id = \(UUID(uuidString: placed.id)!)",
                logger: OrdersFixture.logger)
            var authorization = ""
            for try await value in rows.decode(String.self) { authorization = value }
            func refunded(_ amount: Int64) -> [String: Any] {
                [
                    "id": "evt_\(UUID().uuidString)", "type": "charge.refunded",
                    "data": ["object": ["id": "ch_1", "payment_intent": authorization, "amount_refunded": amount]],
                ]
            }
            _ = try await deliver(hooks, refunded(50), at: db.clock.now())
            #expect(try await db.ledger(placed.id).sum == placed.total.amount - 50)
            _ = try await deliver(hooks, refunded(50), at: db.clock.now())
            #expect(
                try await db.ledger(placed.id).sum == placed.total.amount - 50, "the same total refunded: nothing new")
            // Canceling gives back the rest only; Stripe's event for that refund adds nothing.
            _ = try await db.handlers.transitions.cancel(placed.id, actor: ann, requestId: "t")
            #expect(try await db.ledger(placed.id).sum == 0)
            _ = try await deliver(hooks, refunded(placed.total.amount), at: db.clock.now())
            #expect(try await db.ledger(placed.id).sum == 0)
            #expect(try await db.ledger(placed.id).movements["refund"] == 2)
            #expect(try await db.events(placed.id).filter { $0 == "orders.refunded" }.count == 1)
            #expect(try await db.events(placed.id).filter { $0 == "orders.refund_notice" }.count == 1)

            let dispute: [String: Any] = [
                "id": "evt_\(UUID().uuidString)", "type": "charge.dispute.created",
                "data": ["object": ["id": "dp_1", "payment_intent": authorization, "reason": "fraudulent"]],
            ]
            _ = try await deliver(hooks, dispute, at: db.clock.now())
            #expect(try await db.events(placed.id).suffix(2) == ["orders.disputed", "orders.dispute_notice"])
            _ = try await deliver(hooks, dispute.merging(["id": "evt_\(UUID().uuidString)"]) { $1 }, at: db.clock.now())
            #expect(
                try await db.events(placed.id).filter { $0 == "orders.dispute_notice" }.count == 1,
                "the same dispute told once")
        }
    }
}
