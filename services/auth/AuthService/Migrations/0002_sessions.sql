-- The key that signs access tokens (EdDSA, Ed25519). One active key; retired ones stay listed in
-- the JWKS until the tokens they signed have expired.
CREATE TABLE signing_keys (
    kid          text PRIMARY KEY,
    private_key  bytea NOT NULL,
    created_at   timestamptz NOT NULL,
    retired_at   timestamptz
);

-- Refresh tokens: opaque, stored as SHA-256, rotated on every use. A family is one login; a
-- spent token used again revokes its whole family.
CREATE TABLE refresh_tokens (
    id          uuid PRIMARY KEY,
    user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    family_id   uuid NOT NULL,
    token_hash  bytea NOT NULL UNIQUE,
    issued_at   timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz,
    revoked_at  timestamptz
);

CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_user ON refresh_tokens (user_id);
