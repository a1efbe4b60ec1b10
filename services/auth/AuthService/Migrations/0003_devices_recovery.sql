-- Push targets of an account (TapWater's devices table). A push token belongs to one install,
-- so it is unique: registering it again (even from another account) moves it.
CREATE TABLE devices (
    id          uuid PRIMARY KEY,
    user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token       text NOT NULL UNIQUE,
    platform    text NOT NULL CHECK (platform IN ('ios', 'android', 'web')),
    os_version  text NOT NULL,
    app         text,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);

CREATE INDEX devices_user ON devices (user_id);

-- Password-reset tokens: 256 random bits, stored as SHA-256, single use, short-lived.
CREATE TABLE password_resets (
    token_hash  bytea PRIMARY KEY,
    user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz
);

CREATE INDEX password_resets_user ON password_resets (user_id, created_at);

-- Username reminders sent, per address, so that nobody can flood an inbox with them.
CREATE TABLE username_reminders (
    email         text NOT NULL,
    requested_at  timestamptz NOT NULL
);

CREATE INDEX username_reminders_email ON username_reminders (email, requested_at);
