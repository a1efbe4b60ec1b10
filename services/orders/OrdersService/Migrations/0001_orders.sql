-- Exchange-rate sets, newest last; a quote or an order names the set it was priced with.
CREATE TABLE rate_sets (
    id          bigserial PRIMARY KEY,
    rate_date   date NOT NULL,
    rates       jsonb NOT NULL,          -- {"USD": "1.0823", ...}: units per euro, as published
    source      text NOT NULL,           -- 'shipped sample', 'file:/path', 'admin <user id>'
    loaded_at   timestamptz NOT NULL
);

-- Quotes: a price at a rate, valid until expires_at.
CREATE TABLE quotes (
    id           uuid PRIMARY KEY,
    user_id      uuid,
    rate_set_id  bigint NOT NULL REFERENCES rate_sets (id),
    currency     text NOT NULL,
    breakdown    jsonb NOT NULL,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL
);
CREATE INDEX quotes_expires ON quotes (expires_at);

-- Saved cards: a provider token with brand, last four digits and expiry. Never the number or CVC.
CREATE TABLE payment_methods (
    id          uuid PRIMARY KEY,
    user_id     uuid NOT NULL,
    provider    text NOT NULL,
    token       text NOT NULL,
    brand       text NOT NULL,
    last4       char(4) NOT NULL,
    exp_month   int NOT NULL,
    exp_year    int NOT NULL,
    created_at  timestamptz NOT NULL,
    deleted_at  timestamptz
);
CREATE INDEX payment_methods_user ON payment_methods (user_id, created_at) WHERE deleted_at IS NULL;

CREATE TABLE orders (
    id                 uuid PRIMARY KEY,
    user_id            uuid NOT NULL,
    kind               text NOT NULL CHECK (kind IN ('postcard', 'ecard', 'gift')),
    state              text NOT NULL,
    currency           text NOT NULL,
    total_amount       bigint NOT NULL CHECK (total_amount >= 0),
    breakdown          jsonb NOT NULL,   -- PriceBreakdown: lines, total, rateDate, rate
    details            jsonb NOT NULL,   -- the postcard, ecard or gift as ordered
    search_text        text NOT NULL,    -- recipient names, addresses and e-mails, lower case
    payment_method_id  uuid NOT NULL REFERENCES payment_methods (id),
    authorization_id   text,
    captured           boolean NOT NULL DEFAULT false,
    quote_id           uuid,
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL
);
CREATE INDEX orders_user_created ON orders (user_id, created_at DESC, id DESC);

-- Every state an order reached, when, and why.
CREATE TABLE order_states (
    order_id  uuid NOT NULL REFERENCES orders (id),
    seq       int NOT NULL,
    state     text NOT NULL,
    at        timestamptz NOT NULL,
    reason    text,
    PRIMARY KEY (order_id, seq)
);

-- Idempotency keys of order creation, per user: the first request's body hash and its result.
CREATE TABLE idempotency_keys (
    user_id       uuid NOT NULL,
    key           text NOT NULL,
    request_hash  text NOT NULL,
    order_id      uuid,
    status        text NOT NULL,         -- 'ok' or the error code of the first result
    response      jsonb NOT NULL,        -- the reply or the error body of the first result
    created_at    timestamptz NOT NULL,
    expires_at    timestamptz NOT NULL,
    PRIMARY KEY (user_id, key)
);
CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);

-- Every money movement, append-only. Two accounts per order: 'hold' (authorized, not taken)
-- and 'charge' (captured). authorize: hold +x; capture: hold -x, charge +x; void: hold -x;
-- refund: charge -x. So an order's rows sum to what the customer is out of pocket: zero for a
-- failed, canceled or refunded order.
CREATE TABLE ledger (
    id            bigserial PRIMARY KEY,
    order_id      uuid NOT NULL REFERENCES orders (id),
    user_id       uuid NOT NULL,
    movement      text NOT NULL CHECK (movement IN ('authorize', 'capture', 'void', 'refund')),
    account       text NOT NULL CHECK (account IN ('hold', 'charge')),
    amount        bigint NOT NULL,
    currency      text NOT NULL,
    provider      text NOT NULL,
    provider_ref  text NOT NULL,
    created_at    timestamptz NOT NULL
);
CREATE INDEX ledger_order ON ledger (order_id);

CREATE FUNCTION ledger_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the ledger is append-only';
END;
$$;
CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON ledger
    FOR EACH ROW EXECUTE FUNCTION ledger_is_append_only();
