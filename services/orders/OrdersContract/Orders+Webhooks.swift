import CommonContract
import Contract

extension Orders {
    /// `stripe_webhook`: an event Stripe sent to `POST /v1/webhooks/stripe`, as it came. Orders
    /// checks the signature, keeps the event id (a repeat is answered and ignored) and moves the
    /// order the event is about.
    public enum StripeWebhook: ServiceOperation {
        public static let service = ServiceName.orders
        public static let name = "stripe_webhook"

        /// The raw body (the signature covers its exact bytes) and the `Stripe-Signature` header.
        public struct Request: Codable, Sendable, Hashable {
            public var payload: String
            public var signature: String?
            public init(payload: String, signature: String?) {
                self.payload = payload
                self.signature = signature
            }
        }

        /// Received; `duplicate` when the event id had been handled before.
        public struct Reply: Codable, Sendable, Hashable {
            public var received: Bool
            public var duplicate: Bool
            public init(received: Bool, duplicate: Bool) {
                self.received = received
                self.duplicate = duplicate
            }
        }
    }

    /// Topics of the processor's events about an order.
    public enum PaymentTopic {
        /// The buyer's bank opened a dispute on an order's charge. Payload ``OrderEvent`` (the
        /// dispute's reason as `reason`).
        public static let disputed = "orders.disputed"
        /// Money was given back on an order outside a state change (a refund made at the
        /// processor). Payload ``OrderEvent`` (`total` is the amount refunded).
        public static let refunded = "orders.refunded"
    }
}

extension Orders {
    /// `refund_order` (admins, with an Idempotency-Key): gives back part or all of an order's
    /// captured payment.
    public enum RefundOrder: ServiceOperation {
        public static let service = ServiceName.orders
        public static let name = "refund_order"

        /// The order, the amount in its currency's minor units (all that is left when absent)
        /// and why.
        public struct Request: Codable, Sendable, Hashable {
            public var id: String
            public var amount: Int64?
            public var reason: String?
            public init(id: String, amount: Int64? = nil, reason: String? = nil) {
                self.id = id
                self.amount = amount
                self.reason = reason
            }
        }

        /// The refund made and what the order has had back in all.
        public struct Reply: Codable, Sendable, Hashable {
            public var orderId: String
            public var refundId: String
            public var amount: Money
            public var refundedTotal: Money
            public var state: String
            public init(orderId: String, refundId: String, amount: Money, refundedTotal: Money, state: String) {
                self.orderId = orderId
                self.refundId = refundId
                self.amount = amount
                self.refundedTotal = refundedTotal
                self.state = state
            }
        }
    }
}
