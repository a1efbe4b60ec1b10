import Contract
import Foundation
import OrdersContract
import PostgresNIO
import Testing

@testable import OrdersService

/// Saved cards and Stripe Customers, against the stand-in (which enforces Stripe's rule: a
/// PaymentMethod not attached to a Customer pays once) and real PostgreSQL.
@Suite("orders: saved Stripe cards attached to the user's Customer (stand-in, PostgreSQL)")
struct StripeCustomerTests {
    /// A PaymentMethod as the app's SDK makes it for `number`.
    static func paymentMethod(_ standin: StripeStandin, _ number: String = "4242424242424242") async throws
        -> String
    {
        let made = try await standin.stripe(
            "/v1/payment_methods",
            [
                "type": "card", "card[number]": number, "card[exp_month]": "11", "card[exp_year]": "2031",
                "card[cvc]": "123",
            ])
        return try #require(made["id"] as? String)
    }

    @Test("the stand-in refuses a second payment with a PaymentMethod that has no Customer, as Stripe does")
    func ruleEnforced() async throws {
        try await StripeStandin.with { standin in
            let stripe = StripeProviderTests.provider(standin)
            let pm = try await Self.paymentMethod(standin)
            let eur = StripeProviderTests.eur
            _ = try await stripe.authorize(token: pm, amount: eur, idempotencyKey: "a-\(pm)")
            do {
                _ = try await stripe.authorize(token: pm, amount: eur, idempotencyKey: "b-\(pm)")
                Issue.record("a spent PaymentMethod paid twice")
            } catch let declined as PaymentDeclined {
                #expect(declined.reason == "card_declined")
            }
            let raw = try await standin.stripe(
                "/v1/payment_intents",
                ["amount": "100", "currency": "eur", "payment_method": pm, "confirm": "true"])
            let error = try #require(raw["error"] as? [String: Any])
            #expect(error["type"] as? String == "invalid_request_error")
            #expect(error["code"] as? String == "payment_method_unexpected_state")
            // Attached, it pays for its Customer only, who must be named.
            let customer = try #require(try await stripe.customer(for: UUID()))
            let other = try await Self.paymentMethod(standin)
            #expect(try await stripe.attach(token: other, customer: customer) == other)
            #expect(try await stripe.attach(token: other, customer: customer) == other, "attaching again is harmless")
            for _ in 0..<2 {
                _ = try await stripe.authorize(
                    token: other, customer: customer, amount: eur, idempotencyKey: UUID().uuidString)
            }
            let unnamed = try await standin.stripe(
                "/v1/payment_intents",
                ["amount": "100", "currency": "eur", "payment_method": other, "confirm": "true"])
            #expect((unnamed["error"] as? [String: Any])?["param"] as? String == "customer")
            let stranger = try #require(try await stripe.customer(for: UUID()))
            let wrong = try await standin.stripe(
                "/v1/payment_intents",
                [
                    "amount": "100", "currency": "eur", "payment_method": other, "confirm": "true",
                    "customer": stranger,
                ])
            #expect((wrong["error"] as? [String: Any])?["param"] as? String == "customer")
        }
    }

    @Test("two orders with the same tokenized card both pay; one Customer per user, named by every intent")
    func twoOrdersOneCard() async throws {
        try await StripeStandin.with { standin in
            let stripe = StripeProviderTests.provider(standin)
            try await OrdersFixture.with(provider: { _ in stripe }) { db in
                let ann = db.user()
                let pm = try await Self.paymentMethod(standin)
                let saved = try await db.wallet.addTokenized(.init(paymentMethodId: pm), actor: ann)
                let customer = try #require(try await db.customer(of: ann))
                #expect(try await db.cardCustomer(saved.id) == customer)
                for _ in 0..<2 {
                    let order = try await db.handlers.placement.place(db.postcard(card: saved.id), actor: ann, requestId: "t")
                    #expect(order.state == "paid")
                }
                // An e-card (automatic capture) with it too, and a second card of Ann's.
                let second = try await db.wallet.addTokenized(
                    .init(paymentMethodId: try await Self.paymentMethod(standin, "5555555555554444")), actor: ann)
                #expect(try await db.cardCustomer(second.id) == customer)
                let ecard = try await db.handlers.placement.place(
                    KeyedOrder(
                        idempotencyKey: UUID().uuidString, kind: "ecard", ecard: PaymentRecoveryTests.ecard,
                        currency: "EUR", paymentMethodId: saved.id),
                    actor: ann, requestId: "t")
                #expect(ecard.state == "paid")
                let intents = try #require(try await standin.read("intents")["data"] as? [[String: Any]])
                #expect(intents.count == 3)
                #expect(
                    intents.allSatisfy {
                        $0["customer"] as? String == customer && $0["payment_method"] as? String == pm
                    })
                #expect((try await standin.read("stats")["customers"] as? Int) == 1)
                // A test card saved through POST /v1/payment-methods is attached too (Stripe
                // copies the test PaymentMethod into one of the Customer's).
                let test = try await db.card(for: ann)
                #expect(try await db.cardCustomer(test) == customer)
                for _ in 0..<2 {
                    #expect(
                        try await db.handlers.placement.place(db.postcard(card: test), actor: ann, requestId: "t").state == "paid")
                }
                #expect((try await standin.read("stats")["customers"] as? Int) == 1)
            }
        }
    }

    @Test("a card saved before cards were attached is attached on its next payment; a spent one is refused clearly")
    func savedBefore() async throws {
        try await StripeStandin.with { standin in
            let stripe = StripeProviderTests.provider(standin)
            try await OrdersFixture.with(provider: { _ in stripe }) { db in
                let ann = db.user()
                let store = PaymentMethodStore(client: db.client, logger: OrdersFixture.logger)
                // Saved as before this change: no Customer, not attached.
                let pm = try await Self.paymentMethod(standin)
                let old = try await store.add(
                    TokenizedCard(token: pm, brand: "visa", last4: "4242", expMonth: 11, expYear: 2031),
                    provider: "stripe", userId: UUID(uuidString: ann.userId)!, now: db.clock.now())
                #expect(try await db.cardCustomer(old.id) == nil)
                for _ in 0..<2 {
                    #expect(
                        try await db.handlers.placement.place(db.postcard(card: old.id), actor: ann, requestId: "t").state == "paid")
                }
                let customer = try #require(try await db.cardCustomer(old.id))
                #expect(try await db.customer(of: ann) == customer)
                let intents = try #require(try await standin.read("intents")["data"] as? [[String: Any]])
                #expect(intents.count == 2 && intents.allSatisfy { $0["customer"] as? String == customer })
                // One that already paid without a Customer (before this change) cannot be
                // attached: the order fails with a 402 that asks for the card again, and the
                // card cannot be saved again either.
                let spentPM = try await Self.paymentMethod(standin)
                _ = try await stripe.authorize(
                    token: spentPM, amount: StripeProviderTests.eur, idempotencyKey: "x-\(spentPM)")
                let spent = try await store.add(
                    TokenizedCard(token: spentPM, brand: "visa", last4: "4242", expMonth: 11, expYear: 2031),
                    provider: "stripe", userId: UUID(uuidString: ann.userId)!, now: db.clock.now())
                var refused: ServiceError?
                do {
                    _ = try await db.handlers.placement.place(db.postcard(card: spent.id), actor: ann, requestId: "t")
                } catch let error as ServiceError {
                    refused = error
                }
                #expect(refused?.code == .paymentRequired)
                #expect(refused?.message.contains("add the card again") == true)
                let again = await failure {
                    _ = try await db.wallet.addTokenized(.init(paymentMethodId: spentPM), actor: ann)
                }
                #expect(again?.code == .invalidArgument)
                #expect((try await standin.read("stats")["customers"] as? Int) == 1)
            }
        }
    }

    @Test("a lost answer or a crash between making the Customer and attaching the card makes no second Customer")
    func noSecondCustomer() async throws {
        try await StripeStandin.with { standin in
            let retrying = StripeProviderTests.provider(standin)
            let once = StripeProviderTests.provider(standin, timeout: .seconds(2), retries: 0)
            try await OrdersFixture.with(provider: { _ in once }) { db in
                // The Customer is made but its answer is lost: the adapter's retry with the
                // user's key gets the same Customer back.
                let ann = UUID()
                try await standin.control("faults", ["fail_5xx": 1, "fail_after": true])
                let first = try #require(try await retrying.customer(for: ann))
                #expect((try await standin.read("stats")["customers"] as? Int) == 1)
                let posts = try #require(try await standin.read("stats")["posts_by_key"] as? [String: Int])
                #expect(posts[StripeClient.customerKey(ann)] == 2)
                #expect(try await retrying.customer(for: ann) == first, "asked again, Stripe's search finds it")

                // Saving a card: the Customer is made, then the process dies (here: the answer
                // is lost and no retry is made) before it is kept or the card attached.
                let bo = db.user()
                let pm = try await Self.paymentMethod(standin)
                try await standin.control("faults", ["fail_5xx": 1, "fail_after": true])
                let lost = await failure {
                    _ = try await db.wallet.addTokenized(.init(paymentMethodId: pm), actor: bo)
                }
                #expect(lost?.code == .unavailable)
                #expect(try await db.customer(of: bo) == nil)
                #expect((try await standin.read("stats")["customers"] as? Int) == 2)
                // The user tries again: the same Customer, kept now, and the card attached.
                let saved = try await db.wallet.addTokenized(.init(paymentMethodId: pm), actor: bo)
                #expect((try await standin.read("stats")["customers"] as? Int) == 2)
                let customer = try #require(try await db.customer(of: bo))
                #expect(try await db.cardCustomer(saved.id) == customer)
                // Kept but the attach lost (a crash after keeping it): the next save re-attaches.
                let pm2 = try await Self.paymentMethod(standin)
                try await standin.control("faults", ["fail_5xx": 1, "fail_after": true])
                #expect(
                    await failure { _ = try await db.wallet.addTokenized(.init(paymentMethodId: pm2), actor: bo) }?.code
                        == .unavailable)
                let saved2 = try await db.wallet.addTokenized(.init(paymentMethodId: pm2), actor: bo)
                #expect(try await db.cardCustomer(saved2.id) == customer)
                for card in [saved.id, saved2.id, saved.id] {
                    #expect(try await db.handlers.placement.place(db.postcard(card: card), actor: bo, requestId: "t").state == "paid")
                }
                #expect((try await standin.read("stats")["customers"] as? Int) == 2)
                // Two racing first saves that each got a Customer keep the first one.
                let store = PaymentMethodStore(client: db.client, logger: OrdersFixture.logger)
                let cy = UUID()
                #expect(
                    try await store.keepCustomer("cus_a", userId: cy, provider: "stripe", now: db.clock.now())
                        == "cus_a")
                #expect(
                    try await store.keepCustomer("cus_b", userId: cy, provider: "stripe", now: db.clock.now())
                        == "cus_a")
            }
        }
    }
}

extension OrdersFixture {
    /// The Stripe Customer kept for `actor`.
    func customer(of actor: Actor) async throws -> String? {
        try await PaymentMethodStore(client: client, logger: Self.logger).customer(
            userId: UUID(uuidString: actor.userId)!, provider: "stripe")
    }

    /// The Customer the saved card `id` is attached to.
    func cardCustomer(_ id: String) async throws -> String? {
        let rows = try await client.query(
            "SELECT customer_id FROM orders.payment_methods WHERE id = \(UUID(uuidString: id)!)", logger: Self.logger)
        for try await customer in rows.decode(String?.self) { return customer }
        return nil
    }
}
