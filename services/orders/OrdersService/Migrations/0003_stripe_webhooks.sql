-- Stripe's webhook events handled, by event id: a repeat is answered and ignored.
CREATE TABLE stripe_events (
    id           text PRIMARY KEY,
    type         text NOT NULL,
    received_at  timestamptz NOT NULL
);
-- A processor's event names the payment (PaymentIntent), our authorization id.
CREATE INDEX orders_authorization ON orders (authorization_id) WHERE authorization_id IS NOT NULL;
ALTER TABLE orders ADD COLUMN disputed_at timestamptz;
