-- Every version of the printer's postage file, as uploaded; rows are never changed or deleted.
-- The version in force is the newest one whose validity covers today (UTC).
CREATE TABLE postage_tariffs (
    id                bigserial PRIMARY KEY,
    label             text NOT NULL,          -- the file's version attribute
    carrier           text NOT NULL,
    currency          char(3) NOT NULL,
    origin            char(2) NOT NULL,
    valid_from        date NOT NULL,
    valid_to          date,
    zones             jsonb NOT NULL,         -- [{"id", "countries", "isDefault"}]
    prices            jsonb NOT NULL,         -- [{"size", "zone"?, "country"?, "amount"}], minor units
    stamp_media_type  text NOT NULL,
    stamp             bytea NOT NULL,
    stamp_width       int NOT NULL,
    stamp_height      int NOT NULL,
    document          text NOT NULL,          -- the file exactly as received
    sha256            text NOT NULL,
    source            text NOT NULL,          -- 'file <path>' or 'upload <user id>'
    loaded_at         timestamptz NOT NULL,
    CHECK (valid_to IS NULL OR valid_to >= valid_from)
);
CREATE INDEX postage_tariffs_sha256 ON postage_tariffs (sha256);
