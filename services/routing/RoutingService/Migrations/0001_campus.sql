-- Trigram matching for typo-tolerant venue search. Installed in `public` so that its functions
-- and operator classes resolve with the default search_path at query time too.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

-- Every imported campus map (OSM XML), newest last; replicas load the newest one and reload
-- when a newer version appears (admin re-import).
CREATE TABLE maps (
    version      bigserial PRIMARY KEY,
    osm          text NOT NULL,
    nodes        int NOT NULL,
    edges        int NOT NULL,
    imported_by  text,
    imported_at  timestamptz NOT NULL
);

-- Points of interest. Venues from the map carry their OSM node id; admins add and edit others.
CREATE TABLE venues (
    id           uuid PRIMARY KEY,
    osm_id       bigint UNIQUE,
    name         text NOT NULL,
    kind         text NOT NULL,
    building     text,
    level        int NOT NULL,
    lat          double precision NOT NULL,
    lon          double precision NOT NULL,
    description  text NOT NULL DEFAULT '',
    history      text NOT NULL DEFAULT '',
    updated_at   timestamptz NOT NULL
);
CREATE INDEX venues_name_trgm ON venues USING gin (lower(name) gin_trgm_ops);
CREATE INDEX venues_kind ON venues (kind);
CREATE INDEX venues_position ON venues (lat, lon);

-- The Wi-Fi access point registry (positioning and crowd areas).
CREATE TABLE access_points (
    bssid        text PRIMARY KEY,
    name         text,
    lat          double precision NOT NULL,
    lon          double precision NOT NULL,
    level        int NOT NULL,
    capacity     int NOT NULL CHECK (capacity > 0),
    updated_at   timestamptz NOT NULL
);

-- The latest connected-device count per access point, as the Wi-Fi controller reports it.
CREATE TABLE occupancy (
    bssid        text PRIMARY KEY,
    devices      int NOT NULL CHECK (devices >= 0),
    reported_at  timestamptz NOT NULL
);
