-- Resumable uploads (tus 1.0.0 core + creation): one row per upload, its bytes as chunks in the
-- order they came. A chunk is committed before its PATCH is answered, so what a client was told
-- is stored survives a crash; the finished upload becomes a row of `images` and its chunks go.
CREATE TABLE uploads (
    id            uuid PRIMARY KEY,
    owner_id      uuid NOT NULL,
    length        bigint NOT NULL CHECK (length > 0),
    received      bigint NOT NULL DEFAULT 0 CHECK (received >= 0 AND received <= length),
    content_type  text,                    -- from Upload-Metadata filetype; else told from the bytes
    image_id      uuid REFERENCES images (id),
    created_at    timestamptz NOT NULL,
    expires_at    timestamptz NOT NULL
);
CREATE INDEX uploads_open_owner ON uploads (owner_id) WHERE image_id IS NULL;
CREATE INDEX uploads_open_expiry ON uploads (expires_at) WHERE image_id IS NULL;

CREATE TABLE upload_chunks (
    upload_id     uuid NOT NULL REFERENCES uploads (id) ON DELETE CASCADE,
    start_offset  bigint NOT NULL,
    data          bytea NOT NULL,
    PRIMARY KEY (upload_id, start_offset)
);
