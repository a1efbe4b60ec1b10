-- Saved greetings (PostcardBuddy 4.2.2.11): texts a user keeps for later cards, newest first.
-- A text is kept once per user (saving it again answers the saved row), at most 500 code points.
CREATE TABLE saved_greetings (
    id          uuid PRIMARY KEY,
    owner_id    uuid NOT NULL,
    text        text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 500),
    occasion    text CHECK (occasion IN ('holiday', 'birthday', 'thanks', 'travel', 'congratulations', 'seasonal')),
    created_at  timestamptz NOT NULL,
    UNIQUE (owner_id, text)
);
CREATE INDEX saved_greetings_owner_idx ON saved_greetings (owner_id, created_at DESC, id DESC);
