-- The directory's typo path. Scoring `q <% name_text` over every similar name cost about 46 ms
-- a query over 100,000 users (a common surname with one letter doubled is similar to 2,000 names).
-- Names are made of far fewer distinct words than there are people, so a misspelt word is
-- matched against the lexicon of distinct words (a few rows share its trigrams), and the words
-- it is close to lead to people through an exact (word, user_id) index.
--
-- Only people findable by name have words here: turning that setting off takes a user's words
-- out (and back in when it is turned on). E-mail addresses are never words: `name_text` holds
-- the display name and a username only when it is not an address.

CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public;

-- The words of a name: lower case, accents removed, split at ASCII spaces and punctuation
-- (so `anna.lindqvist_2` is anna, lindqvist, 2). The search splits its text the same way.
CREATE FUNCTION social.name_words(name text) RETURNS text[] LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(DISTINCT word ORDER BY word), '{}')
    FROM regexp_split_to_table(lower(public.unaccent('public.unaccent'::regdictionary, name)),
        '[[:space:][:punct:]]+') AS word
    WHERE word <> ''
$$;

-- Who has which word (one row per person and distinct word of their name).
CREATE TABLE social.name_words (
    word text NOT NULL,
    user_id uuid NOT NULL,
    PRIMARY KEY (word, user_id)
);

-- The distinct words, with how many people have each; a word nobody has any more is deleted.
-- (No CHECK on `people`: PostgreSQL checks the row an INSERT proposes, a negative change, before
-- ON CONFLICT turns it into an update.)
CREATE TABLE social.name_lexicon (
    word text PRIMARY KEY,
    people integer NOT NULL
);
CREATE INDEX name_lexicon_trgm ON social.name_lexicon USING gin (word public.gin_trgm_ops);

-- Kept by statement triggers on social.people, in the transaction that changes a name, the
-- findable-by-name setting, or removes a person (any writer of the table: the auth events, the
-- privacy setting, account deletion, bulk loads). Lexicon rows are updated in word order, so two
-- transactions touching the same words cannot deadlock.
CREATE FUNCTION social.people_name_words() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    words text[];
    users uuid[];
    deltas integer[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(word), array_agg(user_id), array_agg(1) INTO words, users, deltas
        FROM (SELECT unnest(social.name_words(name_text)) AS word, user_id FROM new_people WHERE findable_by_name) AS came;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(word), array_agg(user_id), array_agg(-1) INTO words, users, deltas
        FROM (SELECT unnest(social.name_words(name_text)) AS word, user_id FROM old_people WHERE findable_by_name) AS gone;
    ELSE
        WITH before AS (
            SELECT unnest(social.name_words(name_text)) AS word, user_id FROM old_people WHERE findable_by_name
        ), after AS (
            SELECT unnest(social.name_words(name_text)) AS word, user_id FROM new_people WHERE findable_by_name
        ), changes AS (
            SELECT word, user_id, -1 AS delta FROM (SELECT * FROM before EXCEPT SELECT * FROM after) AS gone
            UNION ALL
            SELECT word, user_id, 1 FROM (SELECT * FROM after EXCEPT SELECT * FROM before) AS came
        )
        SELECT array_agg(word), array_agg(user_id), array_agg(delta) INTO words, users, deltas FROM changes;
    END IF;
    IF words IS NULL THEN
        RETURN NULL;
    END IF;
    DELETE FROM social.name_words w USING unnest(words, users, deltas) AS c(word, user_id, delta)
    WHERE c.delta < 0 AND w.word = c.word AND w.user_id = c.user_id;
    INSERT INTO social.name_words (word, user_id)
    SELECT word, user_id FROM unnest(words, users, deltas) AS c(word, user_id, delta) WHERE delta > 0
    ON CONFLICT DO NOTHING;
    INSERT INTO social.name_lexicon AS l (word, people)
    SELECT word, sum(delta) FROM unnest(words, deltas) AS c(word, delta)
    GROUP BY word HAVING sum(delta) <> 0 ORDER BY word
    ON CONFLICT (word) DO UPDATE SET people = l.people + excluded.people;
    DELETE FROM social.name_lexicon WHERE people <= 0 AND word = ANY(words);
    RETURN NULL;
END
$$;

CREATE TRIGGER people_name_words_insert AFTER INSERT ON social.people
    REFERENCING NEW TABLE AS new_people FOR EACH STATEMENT EXECUTE FUNCTION social.people_name_words();
CREATE TRIGGER people_name_words_update AFTER UPDATE ON social.people
    REFERENCING OLD TABLE AS old_people NEW TABLE AS new_people
    FOR EACH STATEMENT EXECUTE FUNCTION social.people_name_words();
CREATE TRIGGER people_name_words_delete AFTER DELETE ON social.people
    REFERENCING OLD TABLE AS old_people FOR EACH STATEMENT EXECUTE FUNCTION social.people_name_words();

-- The people already in the directory.
INSERT INTO social.name_words (word, user_id)
SELECT DISTINCT unnest(social.name_words(name_text)), user_id FROM social.people WHERE findable_by_name;
INSERT INTO social.name_lexicon (word, people)
SELECT word, count(*) FROM social.name_words GROUP BY word;
ANALYZE social.name_words;
ANALYZE social.name_lexicon;
