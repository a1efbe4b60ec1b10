-- TapWater: drinks (with tombstones, for sync), each user's change counter, daily plans.

-- One row per user who has logged or synced: its last change number. Writers of one user
-- take this row's lock and number their changes under it, so change numbers commit in order
-- and a sync that reads `seq > cursor` never skips one that commits late.
CREATE TABLE hydration.users (
    user_id uuid PRIMARY KEY,
    last_seq bigint NOT NULL DEFAULT 0
);

CREATE TABLE hydration.drinks (
    user_id uuid NOT NULL,
    uuid uuid NOT NULL,
    category text NOT NULL CHECK (category IN ('drink', 'glass', 'bottle', 'custom')),
    -- exact: whole millilitres (unit 'ml') or hundredths of a US fl oz (unit 'oz')
    amount integer NOT NULL CHECK (amount > 0),
    unit text NOT NULL CHECK (unit IN ('ml', 'oz')),
    drank_at timestamptz NOT NULL,
    utc_offset_seconds integer NOT NULL,
    local_day date NOT NULL,
    device_id text,
    -- the winning version: when (the device's clock), whether it is a tombstone, by which device
    modified_at timestamptz NOT NULL,
    deleted boolean NOT NULL DEFAULT false,
    modified_by text NOT NULL,
    seq bigint NOT NULL,
    PRIMARY KEY (user_id, uuid)
);
CREATE INDEX drinks_changes ON hydration.drinks (user_id, seq);
CREATE INDEX drinks_by_day ON hydration.drinks (user_id, local_day) WHERE NOT deleted;
CREATE INDEX drinks_by_time ON hydration.drinks (user_id, drank_at DESC, uuid DESC) WHERE NOT deleted;

CREATE TABLE hydration.plans (
    user_id uuid PRIMARY KEY,
    goal_amount integer NOT NULL CHECK (goal_amount > 0),
    goal_unit text NOT NULL CHECK (goal_unit IN ('ml', 'oz')),
    reminders_per_day integer NOT NULL,
    wake_minute integer NOT NULL,
    sleep_minute integer NOT NULL,
    time_zone text NOT NULL,
    updated_at timestamptz NOT NULL
);
