-- Print jobs: one per paid postcard order (order_id unique, so orders.paid seen twice makes one
-- job). The rendered PDF of all its cards is a file under DATA_DIR/jobs; the row says where.
CREATE TABLE print_jobs (
    id          uuid PRIMARY KEY,
    order_id    text NOT NULL UNIQUE,
    user_id     text NOT NULL,
    status      text NOT NULL CHECK (status IN ('queued', 'ready', 'printed', 'mailed', 'failed')),
    cards       integer NOT NULL CHECK (cards > 0),
    postcard    jsonb NOT NULL,
    pdf_file    text,
    reason      text,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);
CREATE INDEX print_jobs_status_idx ON print_jobs (status, created_at);

-- Render attempts of print jobs (shared/Store JobQueue; dedupe key = the print job's id).
CREATE TABLE render_jobs (
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
CREATE INDEX render_jobs_claim_idx ON render_jobs (run_at) WHERE state = 'queued';
CREATE INDEX render_jobs_lease_idx ON render_jobs (locked_until) WHERE state = 'running';
CREATE INDEX render_jobs_dead_idx ON render_jobs (updated_at) WHERE state = 'dead';
