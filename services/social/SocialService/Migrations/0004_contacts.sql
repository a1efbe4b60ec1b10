-- The address book (every app; PostcardBuddy's recipients). `cards_sent` is counted from
-- orders' `orders.paid` events (postcards whose recipient has the contact's name and address),
-- never written by the client; `counted_events` makes each event count once.
CREATE TABLE social.contacts (
    id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    name text NOT NULL,
    -- the contact's postal address as orders' PostalAddress JSON, or null
    address jsonb,
    email text,
    phone text,
    favourite boolean NOT NULL DEFAULT false,
    cards_sent integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX contacts_by_time ON social.contacts (user_id, created_at DESC, id DESC);
CREATE INDEX contacts_by_sent ON social.contacts (user_id, cards_sent DESC, id DESC);
CREATE INDEX contacts_name_trgm ON social.contacts USING gin (lower(name) public.gin_trgm_ops);

CREATE TABLE social.counted_events (
    event_id uuid PRIMARY KEY,
    counted_at timestamptz NOT NULL
);
