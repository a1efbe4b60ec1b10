-- Refunds operators make (POST /v1/admin/orders/{id}/refund), one per order and Idempotency-Key:
-- committed as pending before the provider is called, done with its reference after.
CREATE TABLE refunds (
    id               uuid PRIMARY KEY,
    order_id         uuid NOT NULL REFERENCES orders (id),
    idempotency_key  text NOT NULL,
    request_hash     text NOT NULL,
    amount           bigint NOT NULL CHECK (amount > 0),
    reason           text,
    admin_id         uuid NOT NULL,
    status           text NOT NULL CHECK (status IN ('pending', 'done')),
    provider_ref     text,
    created_at       timestamptz NOT NULL,
    UNIQUE (order_id, idempotency_key)
);
