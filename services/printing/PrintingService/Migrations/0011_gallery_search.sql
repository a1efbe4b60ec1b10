-- Gallery search: each entry has tags and the name of the place it shows, and a keyword search
-- (`q`) matches words anywhere in the title, the tags and the place name, ignoring case. The
-- search text is one lower-cased string; a trigram index on it serves `LIKE '%word%'` for any
-- part of a word (a full-text index would match whole, stemmed words only). Browsing without a
-- position lists newest first, from the index on (created_at, id).

-- routing, social and civic create the same extension; another creator's win is ignored here.
DO $$
BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
EXCEPTION WHEN unique_violation OR duplicate_object THEN
    NULL;
END
$$;

ALTER TABLE gallery ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
ALTER TABLE gallery ADD COLUMN place text;

-- What `q` is matched against. Declared immutable so an index can be built on it: lower() and
-- the array's text form depend only on the arguments here.
CREATE FUNCTION gallery_search_text(title text, place text, tags text[]) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT lower(title || ' ' || coalesce(place, '') || ' ' || array_to_string(tags, ' '))
$$;

CREATE INDEX gallery_search_trgm ON gallery
    USING gin (gallery_search_text(title, place, tags) public.gin_trgm_ops) WHERE removed_at IS NULL;
CREATE INDEX gallery_newest_idx ON gallery (created_at DESC, id DESC) WHERE removed_at IS NULL;
