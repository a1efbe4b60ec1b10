import Contract
import Foundation
import OrdersContract
import Store

/// `POST /v1/webhooks/stripe`: checks the `Stripe-Signature`, ignores an event id seen before,
/// and moves the order the event is about. The processor's word is asked again rather than
/// believed from the body: a PaymentIntent event only makes its order due, and the settler
/// asks Stripe what the payment came to (``PaymentHandler/settle(_:)``).
///
/// | event | effect |
/// |---|---|
/// | `payment_intent.succeeded`, `.amount_capturable_updated`, `.payment_failed`, `.canceled` | an order still `pending_payment` is finished or released now |
/// | `charge.refunded` | a refund made at Stripe: ledger row(s), `refunded` after a failure, `orders.refunded` |
/// | `charge.dispute.created` | the order is marked disputed, `orders.disputed` |
public struct StripeWebhookHandler: Sendable {
    let stripeEvents: StripeEventStore
    let orders: OrderStore
    let payments: PaymentHandler
    let refunds: RefundHandler
    /// Nil when no `STRIPE_WEBHOOK_SECRET` is set: the endpoint answers 404.
    let signature: StripeSignature?
    let clock: any WallClock

    /// The webhook handler.
    public init(
        stripeEvents: StripeEventStore, orders: OrderStore, payments: PaymentHandler, refunds: RefundHandler,
        signature: StripeSignature?, clock: any WallClock
    ) {
        self.stripeEvents = stripeEvents
        self.orders = orders
        self.payments = payments
        self.refunds = refunds
        self.signature = signature
        self.clock = clock
    }

    /// The members of an event orders reads.
    struct Event: Decodable {
        struct Payload: Decodable {
            let object: Object
        }
        struct Object: Decodable {
            let id: String
            let metadata: [String: String]?
            let paymentIntent: String?
            let amountRefunded: Int64?
            let reason: String?

            enum CodingKeys: String, CodingKey {
                case id, metadata, reason
                case paymentIntent = "payment_intent"
                case amountRefunded = "amount_refunded"
            }
        }
        let id: String
        let type: String
        let data: Payload
    }

    /// Handles one delivery.
    public func receive(_ request: Orders.StripeWebhook.Request) async throws -> Orders.StripeWebhook.Reply {
        guard let signature else { throw ServiceError.notFound("no Stripe webhook endpoint is configured") }
        let now = clock.now()
        try signature.verify(payload: request.payload, header: request.signature, now: now)
        let event: Event
        do {
            event = try JSONDecoder().decode(Event.self, from: Data(request.payload.utf8))
        } catch {
            throw ServiceError(.invalidArgument, "the body is not a Stripe event")
        }
        if try await stripeEvents.seen(event.id) { return .init(received: true, duplicate: true) }
        let object = event.data.object
        switch event.type {
        case "payment_intent.succeeded", "payment_intent.amount_capturable_updated", "payment_intent.payment_failed",
            "payment_intent.canceled":
            if let key = object.metadata?["backplane_key"], let order = Self.order(fromKey: key) {
                try await orders.markPaymentDue(order, now: now)
                try await payments.settle(order)
            }
        case "charge.refunded":
            if let intent = object.paymentIntent, let refunded = object.amountRefunded {
                try await refunds.recordProcessorRefund(intent: intent, refunded: refunded, reference: object.id)
            }
        case "charge.dispute.created":
            if let intent = object.paymentIntent {
                try await payments.recordDispute(intent: intent, reason: object.reason ?? "disputed")
            }
        default:
            break
        }
        try await stripeEvents.remember(event.id, type: event.type, now: now)
        return .init(received: true, duplicate: false)
    }

    /// The order of an authorization key (`order-<id>-authorize`).
    static func order(fromKey key: String) -> UUID? {
        guard key.hasPrefix("order-"), key.hasSuffix("-authorize") else { return nil }
        return UUID(uuidString: String(key.dropFirst("order-".count).dropLast("-authorize".count)))
    }
}
