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
