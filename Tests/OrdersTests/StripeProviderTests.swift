import CommonContract
import Contract
import Foundation
import Logging
import OrdersContract
import PrintingContract
import Testing

@testable import OrdersService

/// The Stripe adapter against the local stand-in (`deploy/stripe-standin/standin.py`): the
/// PaymentIntents subset, idempotency keys on every POST, card errors, 3-D Secure, 5xx and
/// timeouts.
@Suite("orders: the Stripe adapter against the stand-in")
struct StripeProviderTests {
    static let logger: Logger = {
        var logger = Logger(label: "stripe-test")
        logger.logLevel = .critical
        return logger
    }()

    static func provider(_ standin: StripeStandin, timeout: Duration = .seconds(5), retries: Int = 2)
        -> StripeClient
    {
        StripeClient(
            settings: .init(apiKey: StripeStandin.apiKey, baseURL: standin.baseURL, timeout: timeout, retries: retries),
            logger: logger)
    }

    static let eur = Money(amount: 349, currency: "EUR")

    func key() -> String { PaymentStep.key("authorize", order: UUID()) }

    @Test("manual capture: authorize holds, capture takes it, a repeated key answers the first result")
    func authorizeAndCapture() async throws {
        try await StripeStandin.with { standin in
            let stripe = Self.provider(standin)
            let key = key()
            let authorization = try await stripe.authorize(token: "pm_card_visa", amount: Self.eur, idempotencyKey: key)
            #expect(authorization.hasPrefix("pi_"))
            #expect(try await standin.intents() == ["requires_capture": 1])
            #expect(
                try await stripe.authorize(token: "pm_card_visa", amount: Self.eur, idempotencyKey: key)
                    == authorization)
            #expect(try await standin.intents() == ["requires_capture": 1], "the same key makes no second intent")
            #expect(try await stripe.outcome(of: key) == .succeeded(reference: authorization))
            #expect(try await stripe.outcome(of: self.key()) == nil)
            let capture = try await stripe.capture(
                authorization: authorization, amount: Self.eur, idempotencyKey: "c-\(key)")
            #expect(capture == authorization)
            #expect(try await standin.intents() == ["succeeded": 1])
            // Capturing again (an answer lost, another key) finds it captured.
            #expect(
                try await stripe.capture(authorization: authorization, amount: Self.eur, idempotencyKey: "c2-\(key)")
                    == authorization)
            #expect((try await standin.read("stats")["captured"] as? Int) == 349)
        }
    }

    @Test("automatic capture for e-cards and gifts; void cancels a hold; full and partial refunds")
    func captureVoidRefund() async throws {
        try await StripeStandin.with { standin in
            let stripe = Self.provider(standin)
            let charged = try #require(
                try await stripe.authorizeAndCapture(token: "pm_card_visa", amount: Self.eur, idempotencyKey: key()))
            #expect(try await standin.intents() == ["succeeded": 1])
            let held = try await stripe.authorize(token: "pm_card_visa", amount: Self.eur, idempotencyKey: key())
            _ = try await stripe.void(authorization: held, idempotencyKey: "v-\(held)")
            _ = try await stripe.void(authorization: held, idempotencyKey: "v2-\(held)")
            #expect(try await standin.intents() == ["succeeded": 1, "canceled": 1])
            let partial = try await stripe.refund(
                authorization: charged, amount: Money(amount: 100, currency: "EUR"), idempotencyKey: "r1-\(charged)")
            #expect(partial.hasPrefix("re_"))
            #expect(
                try await stripe.refund(
                    authorization: charged, amount: Money(amount: 100, currency: "EUR"), idempotencyKey: "r1-\(charged)"
                )
                    == partial, "a repeated refund key refunds once")
            _ = try await stripe.refund(
                authorization: charged, amount: Money(amount: 249, currency: "EUR"), idempotencyKey: "r2-\(charged)")
            #expect((try await standin.read("stats")["refunded"] as? Int) == 349)
            // Stripe's 400 for more than is left is final: a refusal, not a silence to retry.
            await #expect(throws: PaymentDeclined.self) {
                _ = try await stripe.refund(
                    authorization: charged, amount: Money(amount: 1, currency: "EUR"), idempotencyKey: "r3-\(charged)")
            }
        }
    }

    @Test("card errors become our payment_required reasons; 3-D Secure carries the client secret")
    func declines() async throws {
        try await StripeStandin.with { standin in
            let stripe = Self.provider(standin)
            for (method, reason) in [
                ("pm_card_chargeDeclined", "card_declined"),
                ("pm_card_chargeDeclinedInsufficientFunds", "insufficient_funds"),
                ("pm_card_chargeDeclinedExpiredCard", "expired_card"),
                ("pm_card_chargeDeclinedProcessingError", "processing_error"),
            ] {
                let key = key()
                do {
                    _ = try await stripe.authorize(token: method, amount: Self.eur, idempotencyKey: key)
                    Issue.record("\(method) was authorized")
                } catch let declined as PaymentDeclined {
                    #expect(declined.reason == reason)
                    #expect(declined.serviceError.code == .paymentRequired)
                }
                guard case .declined(let recorded) = try await stripe.outcome(of: key) else {
                    Issue.record("no outcome for \(method)")
                    continue
                }
                #expect(recorded.reason == reason)
            }
            do {
                _ = try await stripe.authorize(
                    token: "pm_card_authenticationRequired", amount: Self.eur, idempotencyKey: key())
                Issue.record("3-D Secure was skipped")
            } catch let declined as PaymentDeclined {
                #expect(declined.reason == "authentication_required")
                let secret = try #require(declined.clientSecret)
                #expect(secret.hasPrefix(try #require(declined.pendingAuthorization)))
                let error = declined.serviceError
                #expect(error.code.httpStatus == 402 && error.details?["clientSecret"] == .string(secret))
            }
            let tokenized = try await stripe.tokenize(
                CardDetails(number: "4000000000009995", expMonth: 12, expYear: 2030, cvc: "123"),
                now: Date(timeIntervalSince1970: 1_790_000_000))
            #expect(tokenized.token == "pm_card_chargeDeclinedInsufficientFunds" && tokenized.last4 == "9995")
        }
    }

    @Test("5xx and timeouts are retried with the same key (one intent); beyond the retries the outcome is asked later")
    func faults() async throws {
        try await StripeStandin.with { standin in
            let stripe = Self.provider(standin, timeout: .seconds(1), retries: 2)
            // Two 500s, the second after doing the work: the third attempt gets the first answer.
            try await standin.control("faults", ["fail_5xx": 2, "fail_after": true])
            let first = key()
            let authorization = try await stripe.authorize(
                token: "pm_card_visa", amount: Self.eur, idempotencyKey: first)
            #expect(try await standin.intents() == ["requires_capture": 1])
            // A timeout after the work: the retry with the same key is answered from the first.
            try await standin.control("faults", ["fail_5xx": 0, "timeout": 1, "timeout_s": 3])
            let second = key()
            let other = try await stripe.authorize(token: "pm_card_visa", amount: Self.eur, idempotencyKey: second)
            #expect(other != authorization)
            #expect(try await standin.intents() == ["requires_capture": 2])
            let posts = try #require(try await standin.read("stats")["posts_by_key"] as? [String: Int])
            #expect(posts[first] == 3 && posts[second] == 2)
            // More failures than retries: unknown, and the intent made is found by its key.
            try await standin.control("faults", ["fail_5xx": 5, "fail_after": true, "timeout": 0])
            let third = key()
            await #expect(throws: StripeUnavailable.self) {
                _ = try await stripe.authorize(token: "pm_card_visa", amount: Self.eur, idempotencyKey: third)
            }
            try await standin.control("faults", ["fail_5xx": 0])
            guard case .succeeded(let found) = try await stripe.outcome(of: third) else {
                Issue.record("the intent made before the 500s was not found")
                return
            }
            #expect(found.hasPrefix("pi_"))
            #expect(try await standin.intents() == ["requires_capture": 3])
        }
    }
}

/// Orders paid through the Stripe adapter and the stand-in, end to end in the order handlers.
@Suite("orders: paying through Stripe (stand-in, PostgreSQL)")
struct StripeOrderTests {
    static let ecard = Orders.EcardDetails(greeting: "Hej", recipients: [.init(name: "Bo", email: "bo@example.org")])

    @Test("postcard held then captured on printing, e-card captured at once, cancel cancels the intent")
    func orders() async throws {
        try await StripeStandin.with { standin in
            let stripe = StripeProviderTests.provider(standin)
            try await OrdersFixture.with(provider: { _ in stripe }) { db in
                let ann = db.user()
                let card = try await db.card(for: ann)
                let postcard = try await db.handlers.placement.place(db.postcard(card: card), actor: ann, requestId: "t")
                #expect(postcard.state == "paid")
                #expect(try await standin.intents() == ["requires_capture": 1])
                try await db.printing(Printing.Topic.jobAccepted, order: postcard.id)
                #expect(try await standin.intents() == ["succeeded": 1])
                #expect(try await db.ledger(postcard.id).movements == ["authorize": 1, "capture": 2])

                let ecard = try await db.handlers.placement.place(
                    KeyedOrder(
                        idempotencyKey: UUID().uuidString, kind: "ecard", ecard: Self.ecard, currency: "EUR",
                        paymentMethodId: card), actor: ann, requestId: "t")
                #expect(try await standin.intents() == ["succeeded": 2], "automatic capture: one call")
                #expect(try await db.ledger(ecard.id).movements == ["authorize": 1, "capture": 2])
                _ = try await db.handlers.transitions.cancel(ecard.id, actor: ann, requestId: "t")
                #expect((try await standin.read("stats")["refunded"] as? Int).map(Int64.init) == ecard.total.amount)

                let held = try await db.handlers.placement.place(db.postcard(card: card), actor: ann, requestId: "t")
                _ = try await db.handlers.transitions.cancel(held.id, actor: ann, requestId: "t")
                #expect(try await standin.intents() == ["succeeded": 2, "canceled": 1])
                #expect(try await db.ledger(held.id).sum == 0)

                let declined = try await db.card("4000000000009995", for: ann)
                let refused = await failure {
                    _ = try await db.handlers.placement.place(db.postcard(card: declined), actor: ann, requestId: "t")
                }
                #expect(refused?.code == .paymentRequired && refused?.reason == "insufficient_funds")
            }
        }
    }

    @Test("3-D Secure: 402 with the client secret, the order waits; confirmed it is paid, failed or abandoned released")
    func threeDSecure() async throws {
        try await StripeStandin.with { standin in
            let stripe = StripeProviderTests.provider(standin)
            try await OrdersFixture.with(provider: { _ in stripe }) { db in
                let ann = db.user()
                let card = try await db.card("4000002760003184", for: ann)
                for action in ["confirm", "fail", "none"] {
                    let request = db.postcard(card: card)
                    var secret: String?
                    do {
                        _ = try await db.handlers.placement.place(request, actor: ann, requestId: "t")
                        Issue.record("no 3-D Secure step")
                    } catch let error as ServiceError {
                        #expect(error.code.httpStatus == 402)
                        #expect(error.details?["reason"] == .string("authentication_required"))
                        if case .string(let value) = error.details?["clientSecret"] { secret = value }
                    }
                    let clientSecret = try #require(secret)
                    let id = try #require(try await db.orderIds(of: ann).last)
                    #expect(try await db.state(id) == "pending_payment")
                    let again = await failure { _ = try await db.handlers.placement.place(request, actor: ann, requestId: "t") }
                    #expect(again?.reason == "authentication_required", "the retry gets the stored 402")
                    let intent = clientSecret.components(separatedBy: "_secret_")[0]
                    if action != "none" {
                        try await standin.control(
                            "authenticate", ["payment_intent": intent, "succeed": action == "confirm"])
                    }
                    db.clock.advance(by: 901)
                    try await db.handlers.payments.settle(id)
                    if action == "confirm" {
                        #expect(try await db.state(id) == "paid")
                        let reply = try await db.handlers.placement.place(request, actor: ann, requestId: "t")
                        #expect(reply.state == "paid" && reply.id == id.uuidString.lowercased())
                        #expect(try await db.ledger(reply.id).movements == ["authorize": 1])
                    } else {
                        #expect(try await db.state(id) == "failed")
                        #expect(try await db.ledger(id.uuidString.lowercased()).sum == 0)
                    }
                }
                #expect(
                    try await standin.intents() == [
                        "requires_capture": 1, "requires_payment_method": 1, "canceled": 1,
                    ],
                    "the intent never confirmed is canceled")
            }
        }
    }

    @Test("Stripe silent past the retries: 409 in progress, then the sweeper finds the intent and finishes the order")
    func silentThenRecovered() async throws {
        try await StripeStandin.with { standin in
            let stripe = StripeProviderTests.provider(standin, timeout: .seconds(1), retries: 1)
            try await OrdersFixture.with(provider: { _ in stripe }) { db in
                let ann = db.user()
                let request = db.postcard(card: try await db.card(for: ann))
                try await standin.control("faults", ["fail_5xx": 2, "fail_after": true])
                let crashed = await failure { _ = try await db.handlers.placement.place(request, actor: ann, requestId: "t") }
                #expect(crashed?.code == .conflict && crashed?.reason == OrderPlacementHandler.paymentInProgress)
                let id = try #require(try await db.orderIds(of: ann).first)
                db.clock.advance(by: 61)
                try await db.handlers.payments.settle(id)
                #expect(try await db.state(id) == "paid")
                #expect(try await standin.intents() == ["requires_capture": 1])
                #expect(try await db.handlers.placement.place(request, actor: ann, requestId: "t").state == "paid")
            }
        }
    }
}
