-- Saved postcards (drafts) of PostcardBuddy: what the composer holds, kept until the owner deletes
-- it. `revision` starts at 1 and grows by one on every change; the ETag is made of it, and an
-- update or delete names the revision it read in its WHERE, so of two devices that read the same
-- revision exactly one writes and the other gets 412.
-- image_id references the image so that an image a draft uses cannot be deleted (the key also
-- orders a concurrent image delete and draft write).
CREATE TABLE drafts (
    id          uuid PRIMARY KEY,
    owner_id    uuid NOT NULL,
    kind        text NOT NULL CHECK (kind IN ('postcard', 'ecard')),
    image_id    uuid REFERENCES images (id),
    content     jsonb NOT NULL,         -- {"edits", "greeting", "size", "recipients"}
    revision    bigint NOT NULL CHECK (revision > 0),
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);
CREATE INDEX drafts_owner_idx ON drafts (owner_id, created_at DESC, id DESC);
CREATE INDEX drafts_image_idx ON drafts (image_id) WHERE image_id IS NOT NULL;
-- GET /v1/images: the owner's uploads, newest first.
CREATE INDEX images_owner_newest_idx ON images (owner_id, created_at DESC, id DESC);
