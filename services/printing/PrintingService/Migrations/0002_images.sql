-- Uploaded images: metadata here, the original bytes under DATA_DIR/originals by SHA-256
-- (one file however many uploads share it).
CREATE TABLE images (
    id           uuid PRIMARY KEY,
    owner_id     uuid NOT NULL,
    sha256       text NOT NULL,
    media_type   text NOT NULL,
    bytes        bigint NOT NULL,
    width        int NOT NULL,          -- as displayed, EXIF orientation applied
    height       int NOT NULL,
    orientation  smallint NOT NULL,
    gps_lat      double precision,
    gps_lon      double precision,
    created_at   timestamptz NOT NULL
);
CREATE INDEX images_owner ON images (owner_id, created_at);
