-- New-bill push (spec 1.3): subscriptions kept per device push token, not per account. A row
-- holds the token (to push to; never answered or logged) and the hash of the secret that
-- changes or ends it; nothing about where the user lives beyond the jurisdictions chosen.
CREATE TABLE civic.subscriptions (
    id uuid PRIMARY KEY,
    secret_hash text NOT NULL,
    device_token text NOT NULL,
    platform text NOT NULL CHECK (platform IN ('ios', 'android', 'web')),
    app text NOT NULL,
    apns_environment text NOT NULL CHECK (apns_environment IN ('production', 'sandbox')),
    jurisdictions text[] NOT NULL,
    subjects text[] NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (app, device_token)
);
CREATE INDEX subscriptions_jurisdictions_idx ON civic.subscriptions USING gin (jurisdictions);

-- Each (subscription, bill) a push is owed for: written by the `civic.push` consumer of
-- `civic.bill_introduced` in its own transaction, once (the key), whatever replays the event.
-- `push_id` is the push it went into once the sender decided (a single bill or a summary).
CREATE TABLE civic.push_outbox (
    subscription_id uuid NOT NULL REFERENCES civic.subscriptions (id) ON DELETE CASCADE,
    bill_id uuid NOT NULL REFERENCES civic.bills (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    push_id uuid,
    PRIMARY KEY (subscription_id, bill_id)
);
CREATE INDEX push_outbox_pending_idx ON civic.push_outbox (created_at) WHERE push_id IS NULL;

-- The pushes decided: their content is fixed when decided, and their id (derived from the
-- subscription and the bill, or the bills of a summary) is notify's notification id, so a
-- repeated hand-over to notify after a crash sends nothing twice.
CREATE TABLE civic.pushes (
    id uuid PRIMARY KEY,
    subscription_id uuid NOT NULL REFERENCES civic.subscriptions (id) ON DELETE CASCADE,
    kind text NOT NULL CHECK (kind IN ('bill', 'summary')),
    bills integer NOT NULL CHECK (bills > 0),
    title text NOT NULL,
    body text NOT NULL,
    decided_at timestamptz NOT NULL,
    locked_until timestamptz,
    attempts integer NOT NULL DEFAULT 0,
    last_error text,
    sent_at timestamptz
);
CREATE INDEX pushes_unsent_idx ON civic.pushes (decided_at) WHERE sent_at IS NULL;
CREATE INDEX pushes_recent_idx ON civic.pushes (subscription_id, decided_at DESC);
