extension JobQueue {
    /// The SQL that creates a job table, for a service's migrations (schema and table must be
    /// lower-case identifiers; the same names are then given to ``JobQueue/init(client:schema:table:clock:backoff:logger:)``).
    ///
    /// Columns: `id, kind, payload, state, attempts, max_attempts, run_at, locked_until,
    /// last_error, dead_reason, dedupe_key (unique, nullable), created_at, updated_at, traceparent`
    /// (the W3C trace context of what queued the job, nullable); partial indexes serve claiming
    /// queued jobs by `run_at` and reclaiming expired leases.
    ///
    /// `traceparent` came after the first job tables: a table created before it gets it from
    /// ``addTraceparentSQL(schema:table:)`` in a later migration, which leaves it the same as
    /// one created here (the column is last in both).
    public static func migrationSQL(schema: String, table: String = "jobs") -> String {
        """
        CREATE TABLE \(schema).\(table) (
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
            updated_at timestamptz NOT NULL,
            traceparent text
        );
        CREATE INDEX \(table)_claim_idx ON \(schema).\(table) (run_at) WHERE state = 'queued';
        CREATE INDEX \(table)_lease_idx ON \(schema).\(table) (locked_until) WHERE state = 'running';
        CREATE INDEX \(table)_dead_idx ON \(schema).\(table) (updated_at) WHERE state = 'dead';
        """
    }

    /// The SQL that adds ``migrationSQL(schema:table:)``'s `traceparent` column to a job table
    /// created before it had one (a no-op on a table that has it).
    public static func addTraceparentSQL(schema: String, table: String = "jobs") -> String {
        "ALTER TABLE \(schema).\(table) ADD COLUMN IF NOT EXISTS traceparent text;"
    }
}
