-- The standard gallery: template images (uploaded by an admin, stored like any image) with the
-- place they show. A removed entry keeps its row (removed_at set): cards already ordered with it
-- still render.
CREATE TABLE gallery (
    id          uuid PRIMARY KEY,
    image_id    uuid NOT NULL REFERENCES images (id),
    title       text NOT NULL,
    lat         double precision NOT NULL CHECK (lat BETWEEN -90 AND 90),
    lon         double precision NOT NULL CHECK (lon BETWEEN -180 AND 180),
    added_by    uuid NOT NULL,
    created_at  timestamptz NOT NULL,
    removed_at  timestamptz
);
CREATE INDEX gallery_image_idx ON gallery (image_id);

-- E-cards: one per paid e-card order (order_id unique). The rendered JPEG (front and back side
-- by side) is kept here and served by its token (256 random bits, base64url).
CREATE TABLE ecards (
    id          uuid PRIMARY KEY,
    order_id    text NOT NULL UNIQUE,
    user_id     text NOT NULL,
    token       text NOT NULL UNIQUE,
    status      text NOT NULL CHECK (status IN ('queued', 'ready', 'failed')),
    ecard       jsonb NOT NULL,
    image       bytea,
    width       integer,
    height      integer,
    reason      text,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);
