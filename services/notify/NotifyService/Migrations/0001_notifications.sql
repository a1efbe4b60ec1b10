-- Every notification, keyed by its id (the idempotency key: the same id is never delivered
-- twice). A notification to a user is also that user's inbox item.
CREATE TABLE notifications (
    id            uuid PRIMARY KEY,
    user_id       uuid,
    email         text,
    kind          text NOT NULL,
    locale        text NOT NULL,
    critical      boolean NOT NULL,
    variables     jsonb NOT NULL,
    title         text NOT NULL,
    body          text NOT NULL,
    request_hash  text NOT NULL,
    created_at    timestamptz NOT NULL,
    deliver_after timestamptz NOT NULL,
    in_inbox      boolean NOT NULL,
    read_at       timestamptz
);

CREATE INDEX notifications_inbox ON notifications (user_id, created_at DESC, id DESC) WHERE in_inbox;
CREATE INDEX notifications_unread ON notifications (user_id) WHERE in_inbox AND read_at IS NULL;

-- Opt-outs per user, kind and channel (a missing row means "on").
CREATE TABLE preferences (
    user_id  uuid NOT NULL,
    kind     text NOT NULL,
    channel  text NOT NULL CHECK (channel IN ('email', 'push', 'inapp')),
    enabled  boolean NOT NULL,
    PRIMARY KEY (user_id, kind, channel)
);

-- Time zone, quiet hours (minutes after local midnight) and locale per user.
CREATE TABLE user_settings (
    user_id      uuid PRIMARY KEY,
    time_zone    text NOT NULL,
    quiet_start  integer CHECK (quiet_start BETWEEN 0 AND 1439),
    quiet_end    integer CHECK (quiet_end BETWEEN 0 AND 1439),
    locale       text,
    updated_at   timestamptz NOT NULL
);

-- What happened to each notification on each channel: the delivery log.
CREATE TABLE deliveries (
    id               bigserial PRIMARY KEY,
    notification_id  uuid NOT NULL,
    user_id          uuid,
    channel          text NOT NULL,
    target           text,
    outcome          text NOT NULL CHECK (outcome IN ('sent', 'skipped', 'retry', 'dead', 'token_removed')),
    detail           text,
    at               timestamptz NOT NULL
);

CREATE INDEX deliveries_user ON deliveries (user_id, at DESC);
CREATE INDEX deliveries_notification ON deliveries (notification_id);

-- Delivery jobs (one per notification and external channel; dedupe key "id:channel").
CREATE TABLE jobs (
    id uuid PRIMARY KEY,
    kind text NOT NULL,
    payload jsonb NOT NULL,
    state text NOT NULL CHECK (state IN ('queued', 'running', 'done', 'dead')),
    attempts integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL CHECK (max_attempts > 0),
    run_at timestamptz NOT NULL,
    locked_until timestamptz,
    last_error text,
    dead_reason text,
    dedupe_key text UNIQUE,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX jobs_claim_idx ON jobs (run_at) WHERE state = 'queued';
CREATE INDEX jobs_lease_idx ON jobs (locked_until) WHERE state = 'running';
CREATE INDEX jobs_dead_idx ON jobs (updated_at) WHERE state = 'dead';

-- One-off (at) and recurring (times of day on days of week, in a time zone) schedules. A replica
-- claims due rows with SKIP LOCKED, submits the occurrence (its notification id derives from the
-- schedule and the due time) and moves next_at in the same transaction.
CREATE TABLE schedules (
    id            uuid PRIMARY KEY,
    user_id       uuid NOT NULL,
    kind          text NOT NULL,
    variables     jsonb NOT NULL,
    once_at       timestamptz,
    times_of_day  bigint[] NOT NULL DEFAULT '{}',
    days_of_week  bigint[] NOT NULL DEFAULT '{}',
    time_zone     text NOT NULL,
    next_at       timestamptz,
    created_at    timestamptz NOT NULL
);

CREATE INDEX schedules_due ON schedules (next_at) WHERE next_at IS NOT NULL;
CREATE INDEX schedules_user ON schedules (user_id, created_at);
