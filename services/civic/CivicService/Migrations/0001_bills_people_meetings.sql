-- PolitiMap: jurisdictions, bills (with what changed), people, meetings, topics, bookmarks,
-- the importer's cursors and its job queue. No table here holds a coordinate or an address
-- of a user: lookups are answered from boundaries and keep nothing.

-- Trigram matching for typo-tolerant search. routing and social create the same extension;
-- the Migrator takes one database-wide lock for every migration that creates an extension, so
-- services starting together on a fresh database take turns (and another creator's win is
-- ignored here all the same).
DO $$
BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
EXCEPTION WHEN unique_violation OR duplicate_object THEN
    NULL;
END
$$;

CREATE TABLE civic.jurisdictions (
    id text PRIMARY KEY,
    name text NOT NULL,
    level text NOT NULL CHECK (level IN ('local', 'county', 'state', 'federal')),
    updated_at timestamptz NOT NULL
);

CREATE TABLE civic.bills (
    id uuid PRIMARY KEY,
    source_id text NOT NULL UNIQUE,
    jurisdiction_id text NOT NULL REFERENCES civic.jurisdictions (id),
    level text NOT NULL,
    session text NOT NULL,
    identifier text NOT NULL,
    title text NOT NULL,
    summary text,
    subjects text[] NOT NULL DEFAULT '{}',
    status text NOT NULL,
    introduced_on date,
    latest_action_on date,
    latest_action text,
    -- when the feed last changed it, and the sort key of "recent": its latest action, else that
    source_updated_at timestamptz NOT NULL,
    activity_at timestamptz NOT NULL,
    introduced_at timestamptz NOT NULL,
    -- actions, sponsors, votes, versions, documents, sources (the detail page)
    detail jsonb NOT NULL,
    -- a short hash per field (title, summary, status, actions, ...): what an import changed
    fingerprints jsonb NOT NULL,
    highlighted boolean NOT NULL DEFAULT false,
    imported_at timestamptz NOT NULL,
    search_text text NOT NULL,
    search tsvector GENERATED ALWAYS AS (to_tsvector('english', search_text)) STORED
);
CREATE INDEX bills_recent_idx ON civic.bills (activity_at DESC, id DESC);
CREATE INDEX bills_level_recent_idx ON civic.bills (level, activity_at DESC, id DESC);
CREATE INDEX bills_jurisdiction_recent_idx ON civic.bills (jurisdiction_id, activity_at DESC, id DESC);
CREATE INDEX bills_introduced_idx ON civic.bills (introduced_at DESC, id DESC);
CREATE INDEX bills_updated_idx ON civic.bills (source_updated_at);
CREATE INDEX bills_subjects_idx ON civic.bills USING gin (subjects);
CREATE INDEX bills_search_idx ON civic.bills USING gin (search);
CREATE INDEX bills_trigram_idx ON civic.bills USING gin (search_text public.gin_trgm_ops);

-- What each import changed in a bill it already had.
CREATE TABLE civic.bill_changes (
    id bigserial PRIMARY KEY,
    bill_id uuid NOT NULL REFERENCES civic.bills (id) ON DELETE CASCADE,
    changed_at timestamptz NOT NULL,
    fields text[] NOT NULL,
    old_status text NOT NULL,
    new_status text NOT NULL
);
CREATE INDEX bill_changes_bill_idx ON civic.bill_changes (bill_id, id);

CREATE TABLE civic.people (
    id uuid PRIMARY KEY,
    source_id text NOT NULL UNIQUE,
    jurisdiction_id text NOT NULL REFERENCES civic.jurisdictions (id),
    name text NOT NULL,
    office text NOT NULL,
    district text,
    party text,
    photo_url text,
    -- fact name -> {value, sourceUrl, verifiedAt}
    facts jsonb NOT NULL,
    content_hash text NOT NULL,
    verified_at timestamptz NOT NULL
);
CREATE INDEX people_jurisdiction_idx ON civic.people (jurisdiction_id, district, name, id);
CREATE INDEX people_name_idx ON civic.people (name, id);

-- Each member's recorded vote, by the person's feed id (linked to people at read).
CREATE TABLE civic.member_votes (
    bill_id uuid NOT NULL REFERENCES civic.bills (id) ON DELETE CASCADE,
    person_source_id text NOT NULL,
    voted_on date NOT NULL,
    motion text NOT NULL,
    option text NOT NULL
);
CREATE INDEX member_votes_person_idx ON civic.member_votes (person_source_id, voted_on DESC);
CREATE INDEX member_votes_bill_idx ON civic.member_votes (bill_id);

-- Positions a person stated, with a source (entered by an editor).
CREATE TABLE civic.stated_positions (
    person_id uuid NOT NULL REFERENCES civic.people (id) ON DELETE CASCADE,
    bill_id uuid NOT NULL REFERENCES civic.bills (id) ON DELETE CASCADE,
    position text NOT NULL,
    stated_on date NOT NULL,
    source_url text NOT NULL,
    PRIMARY KEY (person_id, bill_id)
);

CREATE TABLE civic.meetings (
    id uuid PRIMARY KEY,
    source_id text NOT NULL UNIQUE,
    jurisdiction_id text NOT NULL REFERENCES civic.jurisdictions (id),
    body text NOT NULL,
    name text NOT NULL,
    starts_at timestamptz NOT NULL,
    ends_at timestamptz,
    location text,
    status text NOT NULL,
    -- agenda items with the feed ids of the bills they name; documents; sources
    detail jsonb NOT NULL,
    content_hash text NOT NULL
);
CREATE INDEX meetings_start_idx ON civic.meetings (starts_at, id);
CREATE INDEX meetings_jurisdiction_idx ON civic.meetings (jurisdiction_id, starts_at, id);
CREATE INDEX meetings_body_idx ON civic.meetings (lower(body), starts_at);

-- Named sets of subjects (UC4): data, so an editor adds one without a release.
CREATE TABLE civic.topics (
    id text PRIMARY KEY,
    name text NOT NULL,
    subjects text[] NOT NULL
);
INSERT INTO civic.topics (id, name, subjects) VALUES
    ('international_students', 'Bills that affect international students',
        ARRAY['Immigration', 'Education', 'Higher Education', 'Visas']),
    ('housing', 'Housing and rent', ARRAY['Housing', 'Land Use', 'Homelessness']),
    ('environment', 'Environment and water', ARRAY['Environment', 'Water', 'Energy', 'Climate']),
    ('transportation', 'Getting around', ARRAY['Transportation', 'Public Transit', 'Roads']);

CREATE TABLE civic.bookmarks (
    user_id uuid NOT NULL,
    bill_id uuid NOT NULL REFERENCES civic.bills (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, bill_id)
);
CREATE INDEX bookmarks_list_idx ON civic.bookmarks (user_id, created_at DESC, bill_id DESC);

-- Where each feed left off: the newest `updated_at` of a run that finished.
CREATE TABLE civic.import_cursors (
    jurisdiction_id text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('bills', 'people', 'events')),
    updated_since timestamptz NOT NULL,
    PRIMARY KEY (jurisdiction_id, kind)
);

-- One row per import run, for freshness and the benchmark.
CREATE TABLE civic.import_runs (
    id uuid PRIMARY KEY,
    started_at timestamptz NOT NULL,
    finished_at timestamptz,
    pages integer NOT NULL DEFAULT 0,
    bills_new integer NOT NULL DEFAULT 0,
    bills_changed integer NOT NULL DEFAULT 0,
    people integer NOT NULL DEFAULT 0,
    meetings integer NOT NULL DEFAULT 0,
    throttled integer NOT NULL DEFAULT 0,
    retries integer NOT NULL DEFAULT 0,
    error text
);

CREATE TABLE civic.jobs (
    id uuid PRIMARY KEY,
    kind text NOT NULL,
    payload jsonb NOT NULL,
    state text NOT NULL CHECK (state IN ('queued', 'running', 'done', 'dead')),
    attempts integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL CHECK (max_attempts > 0),
    run_at timestamptz NOT NULL,
    locked_until timestamptz,
    last_error text,
    dead_reason text,
    dedupe_key text UNIQUE,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX jobs_claim_idx ON civic.jobs (run_at) WHERE state = 'queued';
CREATE INDEX jobs_lease_idx ON civic.jobs (locked_until) WHERE state = 'running';
CREATE INDEX jobs_dead_idx ON civic.jobs (updated_at) WHERE state = 'dead';
