-- Sports and cultural events, maintained by admins. A deleted venue leaves its events without
-- a venue rather than deleting them.
CREATE TABLE events (
    id           uuid PRIMARY KEY,
    title        text NOT NULL,
    kind         text NOT NULL,
    venue_id     uuid REFERENCES venues (id) ON DELETE SET NULL,
    description  text NOT NULL DEFAULT '',
    starts_at    timestamptz NOT NULL,
    ends_at      timestamptz NOT NULL CHECK (ends_at >= starts_at),
    updated_at   timestamptz NOT NULL
);
CREATE INDEX events_upcoming ON events (ends_at, starts_at);
CREATE INDEX events_venue ON events (venue_id);

-- Saved locations, private to their owner.
CREATE TABLE pins (
    id           uuid PRIMARY KEY,
    user_id      uuid NOT NULL,
    lat          double precision NOT NULL,
    lon          double precision NOT NULL,
    level        int NOT NULL,
    description  text NOT NULL,
    created_at   timestamptz NOT NULL
);
CREATE INDEX pins_owner ON pins (user_id, created_at);

-- Weekly goals: reach `target` of `metric` in the week that starts on `week_start` (a Monday).
CREATE TABLE goals (
    id           uuid PRIMARY KEY,
    title        text NOT NULL,
    metric       text NOT NULL CHECK (metric IN ('steps', 'distance', 'venues')),
    target       bigint NOT NULL CHECK (target > 0),
    week_start   date NOT NULL,
    reward       text NOT NULL,
    updated_at   timestamptz NOT NULL
);
CREATE INDEX goals_week ON goals (week_start);

-- A user's totals for one week (steps and metres the phone reported).
CREATE TABLE activity (
    user_id      uuid NOT NULL,
    week_start   date NOT NULL,
    steps        bigint NOT NULL DEFAULT 0,
    distance     bigint NOT NULL DEFAULT 0,
    updated_at   timestamptz NOT NULL,
    PRIMARY KEY (user_id, week_start)
);

-- Venues a user was located at, once per venue and week (no position is kept).
CREATE TABLE venue_visits (
    user_id      uuid NOT NULL,
    week_start   date NOT NULL,
    venue_id     uuid NOT NULL,
    visited_at   timestamptz NOT NULL,
    PRIMARY KEY (user_id, week_start, venue_id)
);

-- One voucher per user and completed goal; the goal's title and reward are copied so the
-- voucher stays meaningful when an admin edits or deletes the goal.
CREATE TABLE vouchers (
    code         text PRIMARY KEY,
    goal_id      uuid NOT NULL,
    user_id      uuid NOT NULL,
    goal_title   text NOT NULL,
    reward       text NOT NULL,
    issued_at    timestamptz NOT NULL,
    redeemed_at  timestamptz,
    redeemed_by  text,
    UNIQUE (goal_id, user_id)
);
CREATE INDEX vouchers_owner ON vouchers (user_id);
