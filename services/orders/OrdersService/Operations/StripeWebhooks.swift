import Contract
import Foundation
import NotifyContract
import OrdersContract
import PostgresNIO
import Store

/// `POST /v1/webhooks/stripe`: checks the `Stripe-Signature`, ignores an event id seen before,
/// and moves the order the event is about. The processor's word is asked again rather than
/// believed from the body: a PaymentIntent event only makes its order due, and the settler
/// asks Stripe what the payment came to (``OrderBook/settle(_:)``).
///
/// | event | effect |
/// |---|---|
/// | `payment_intent.succeeded`, `.amount_capturable_updated`, `.payment_failed`, `.canceled` | an order still `pending_payment` is finished or released now |
/// | `charge.refunded` | a refund made at Stripe: ledger row(s), `refunded` after a failure, `orders.refunded` |
/// | `charge.dispute.created` | the order is marked disputed, `orders.disputed` |
public struct StripeWebhooks: Sendable {
    let book: OrderBook
    /// Nil when no `STRIPE_WEBHOOK_SECRET` is set: the endpoint answers 404.
    let signature: StripeSignature?

    /// The webhook handler.
    public init(book: OrderBook, signature: StripeSignature?) {
        self.book = book
        self.signature = signature
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
        let now = book.clock.now()
        try signature.verify(payload: request.payload, header: request.signature, now: now)
        let event: Event
        do {
            event = try JSONDecoder().decode(Event.self, from: Data(request.payload.utf8))
        } catch {
            throw ServiceError(.invalidArgument, "the body is not a Stripe event")
        }
        let seen = try await book.client.fetch(
            "SELECT 1 FROM orders.stripe_events WHERE id = \(event.id)", logger: book.logger)
        for try await _ in seen.decode(Int.self) { return .init(received: true, duplicate: true) }
        let object = event.data.object
        switch event.type {
        case "payment_intent.succeeded", "payment_intent.amount_capturable_updated", "payment_intent.payment_failed",
            "payment_intent.canceled":
            if let key = object.metadata?["backplane_key"], let order = Self.order(fromKey: key) {
                try await book.client.fetch(
                    """
                    UPDATE orders.orders SET payment_due_at = \(now)
                    WHERE id = \(order) AND state = 'pending_payment'
                    """, logger: book.logger)
                try await book.settle(order)
            }
        case "charge.refunded":
            if let intent = object.paymentIntent, let refunded = object.amountRefunded {
                try await book.recordProcessorRefund(intent: intent, refunded: refunded, reference: object.id)
            }
        case "charge.dispute.created":
            if let intent = object.paymentIntent {
                try await book.recordDispute(intent: intent, reason: object.reason ?? "disputed")
            }
        default:
            break
        }
        try await book.client.fetch(
            """
            INSERT INTO orders.stripe_events (id, type, received_at) VALUES (\(event.id), \(event.type), \(now))
            ON CONFLICT (id) DO NOTHING
            """, logger: book.logger)
        return .init(received: true, duplicate: false)
    }

    /// The order of an authorization key (`order-<id>-authorize`).
    static func order(fromKey key: String) -> UUID? {
        guard key.hasPrefix("order-"), key.hasSuffix("-authorize") else { return nil }
        return UUID(uuidString: String(key.dropFirst("order-".count).dropLast("-authorize".count)))
    }
}

extension OrderBook {
    /// A refund made at the processor (Stripe's `charge.refunded`, `refunded` in all so far):
    /// the part not yet in the ledger is written as a refund, the order's money released once
    /// all of it is back (and a failed order becomes `refunded`), with `orders.refunded`.
    func recordProcessorRefund(intent: String, refunded: Int64, reference: String) async throws {
        let stored = try await transaction { connection -> [StoredEvent] in
            let rows = try await connection.fetch(
                """
                SELECT o.id, o.user_id, o.kind, o.state, o.currency, o.total_amount, o.captured,
                       (SELECT coalesce(-sum(l.amount), 0)::bigint FROM orders.ledger l
                        WHERE l.order_id = o.id AND l.movement = 'refund')
                       + (SELECT coalesce(sum(r.amount), 0)::bigint FROM orders.refunds r
                          WHERE r.order_id = o.id AND r.status = 'pending')
                FROM orders.orders o WHERE o.authorization_id = \(intent) FOR UPDATE OF o
                """, logger: self.logger)
            var found: (UUID, UUID, String, String, String, Int64, Bool, Int64)?
            for try await row in rows.decode((UUID, UUID, String, String, String, Int64, Bool, Int64).self) {
                found = row
            }
            guard let (order, user, kind, stateText, currency, total, captured, already) = found, captured,
                refunded > already, let state = OrderState(rawValue: stateText)
            else { return [] }
            let now = self.clock.now()
            let amount = min(refunded, total) - already
            guard amount > 0 else { return [] }
            try await self.ledger(
                [Movement(movement: "refund", account: "charge", amount: -amount, reference: reference)], order: order,
                user: user, currency: currency, at: now, on: connection)
            let full = already + amount >= total
            let next: OrderState = full && state == .failed ? .refunded : state
            try await connection.fetch(
                """
                UPDATE orders.orders SET released = released OR \(full), state = \(next.rawValue), updated_at = \(now)
                WHERE id = \(order)
                """, logger: self.logger)
            var event = Orders.OrderEvent(
                orderId: order.uuidString.lowercased(), userId: user.uuidString.lowercased(), kind: kind,
                from: state.rawValue, state: next.rawValue, at: now, reason: "refunded at the processor",
                total: Money(amount: amount, currency: currency))
            var stored = [try await self.append(Orders.PaymentTopic.refunded, event, requestId: nil, on: connection)]
            stored.append(try await self.appendRefundNotice(event, on: connection))
            if next != state {
                try await self.recordStates([(next, "the payment was refunded")], order: order, at: now, on: connection)
                event.total = Money(amount: total, currency: currency)
                stored.append(try await self.append(Orders.Topic.stateChanged, event, requestId: nil, on: connection))
            }
            return stored
        }
        for event in stored { events.announce(event) }
    }

    /// A dispute opened on an order's charge: the order is marked, `orders.disputed` logged.
    func recordDispute(intent: String, reason: String) async throws {
        let stored = try await transaction { connection -> [StoredEvent] in
            let now = self.clock.now()
            let rows = try await connection.fetch(
                """
                UPDATE orders.orders SET disputed_at = \(now), updated_at = \(now)
                WHERE authorization_id = \(intent) AND disputed_at IS NULL
                RETURNING id, user_id, kind, state, currency, total_amount
                """, logger: self.logger)
            var marked: [(UUID, UUID, String, String, String, Int64)] = []
            for try await row in rows.decode((UUID, UUID, String, String, String, Int64).self) { marked.append(row) }
            var stored: [StoredEvent] = []
            for (order, user, kind, state, currency, total) in marked {
                let event = Orders.OrderEvent(
                    orderId: order.uuidString.lowercased(), userId: user.uuidString.lowercased(), kind: kind,
                    from: state, state: state, at: now, reason: reason, total: Money(amount: total, currency: currency))
                stored.append(
                    try await self.append(Orders.PaymentTopic.disputed, event, requestId: nil, on: connection))
                stored.append(
                    try await self.events.append(
                        topic: Notify.OrderDisputed.topic,
                        payload: Notify.OrderDisputed(userId: event.userId, orderId: event.orderId), requestId: nil,
                        on: connection, logger: self.logger))
            }
            return stored
        }
        for event in stored { events.announce(event) }
    }
}
