-- Gifter's people: the directory (from auth's events), friend requests, friendships, blocks.

-- In public, where routing creates it too (the first of the two to start creates it).
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

-- The directory, kept from auth's `auth.profile_changed` events. E-mail addresses and phone
-- numbers are kept only as SHA-256 digests (found by exact match, never shown, never listed).
-- `name_text` is what name search matches: the display name and the username unless the
-- username is an e-mail address.
CREATE TABLE social.people (
    user_id uuid PRIMARY KEY,
    username text NOT NULL,
    display_name text,
    name_text text NOT NULL,
    email_digests text[] NOT NULL DEFAULT '{}',
    phone_digest text,
    findable_by_contact boolean NOT NULL DEFAULT true,
    findable_by_name boolean NOT NULL DEFAULT true,
    updated_at timestamptz NOT NULL
);
CREATE INDEX people_name_trgm ON social.people USING gin (name_text gin_trgm_ops);
CREATE INDEX people_email ON social.people USING gin (email_digests);
CREATE INDEX people_phone ON social.people (phone_digest) WHERE phone_digest IS NOT NULL;

-- A pending request from one user to another; at most one each way (the primary key), and
-- never both ways at once (the second accepts the first, under the pair's advisory lock).
CREATE TABLE social.friend_requests (
    from_user uuid NOT NULL,
    to_user uuid NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (from_user, to_user),
    CHECK (from_user <> to_user)
);
CREATE INDEX friend_requests_incoming ON social.friend_requests (to_user, created_at DESC, from_user DESC);
CREATE INDEX friend_requests_outgoing ON social.friend_requests (from_user, created_at DESC, to_user DESC);

-- A friendship is two rows, one for each side, so either side's list is one index range.
CREATE TABLE social.friendships (
    user_id uuid NOT NULL,
    friend_id uuid NOT NULL,
    since timestamptz NOT NULL,
    PRIMARY KEY (user_id, friend_id),
    CHECK (user_id <> friend_id)
);
CREATE INDEX friendships_by_since ON social.friendships (user_id, since DESC, friend_id DESC);

CREATE TABLE social.blocks (
    blocker uuid NOT NULL,
    blocked uuid NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (blocker, blocked),
    CHECK (blocker <> blocked)
);
CREATE INDEX blocks_by_blocked ON social.blocks (blocked, blocker);
