-- Wish lists: each item as the user saw it when adding it (refreshed from the catalogue when
-- listed), and an optional note.
CREATE TABLE social.favourites (
    -- the row's own id: the tie-breaker of the list's keyset pages (item ids are the provider's)
    id uuid NOT NULL UNIQUE,
    user_id uuid NOT NULL,
    item_id text NOT NULL,
    note text,
    title text NOT NULL,
    image_url text NOT NULL,
    price_amount bigint NOT NULL,
    currency text NOT NULL,
    added_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, item_id)
);
CREATE INDEX favourites_by_time ON social.favourites (user_id, added_at DESC, id DESC);
