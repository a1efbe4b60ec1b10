-- Accounts of all five apps. Usernames are stored canonical (trimmed, lower case).
CREATE TABLE users (
    id            uuid PRIMARY KEY,
    username      text NOT NULL UNIQUE,
    email         text,
    phone         text,
    display_name  text,
    password_hash text NOT NULL,
    roles         text[] NOT NULL DEFAULT ARRAY['user'],
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL
);

CREATE INDEX users_email ON users (lower(email));

-- Login counters per canonical username, known or not, so that the lockout behaves the same
-- for names without an account and reveals nothing about who has one.
CREATE TABLE login_attempts (
    username    text PRIMARY KEY,
    attempts    int NOT NULL DEFAULT 0,
    held_until  timestamptz,
    updated_at  timestamptz NOT NULL
);
