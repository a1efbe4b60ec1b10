-- Placing an order pays in phases with no transaction open during a provider call (issue 25):
-- the order is committed as pending_payment, the provider is called, the outcome is committed.
-- A money movement an order's state calls for (capture when printing starts, void or refund
-- when it fails or is canceled) is likewise done after the move commits.
--
-- payment_due_at: when the settler (or the recovery sweeper, for pending_payment orders) may take
-- the order's outstanding payment step; NULL when its money matches its state. Claiming an
-- order moves it into the future (a lease), so replicas never take the same order at once.
ALTER TABLE orders
    ADD COLUMN payment_due_at timestamptz,
    ADD COLUMN released       boolean NOT NULL DEFAULT false,  -- the hold voided or the charge refunded
    ADD COLUMN capture_owed   boolean NOT NULL DEFAULT false,  -- production started: the hold is to be captured
    ADD COLUMN gift_notice    jsonb;                            -- Orders.GiftReceived, sent once paid
CREATE INDEX orders_payment_due ON orders (payment_due_at) WHERE payment_due_at IS NOT NULL;
-- Phase 3 (and the sweeper) store the outcome under the key by the order it names.
CREATE INDEX idempotency_keys_order ON idempotency_keys (order_id) WHERE order_id IS NOT NULL;

-- The sandbox provider's own record of every call, by idempotency key: what a real processor
-- keeps on its side. It lets the sandbox answer a repeated key with the first result and say
-- what happened for a key after a crash (kill -9) of the orders process.
CREATE TABLE sandbox_payments (
    idempotency_key  text PRIMARY KEY,
    operation        text NOT NULL CHECK (operation IN ('authorize', 'capture', 'void', 'refund')),
    outcome          text NOT NULL,  -- 'ok' or the decline reason
    reference        text,           -- the id answered when outcome = 'ok'
    amount           bigint,
    currency         text,
    created_at       timestamptz NOT NULL
);
