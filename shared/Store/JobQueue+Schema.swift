extension JobQueue {
    /// The SQL that creates a job table, for a service's migrations (schema and table must be
    /// lower-case identifiers; the same names are then given to ``JobQueue/init(client:schema:table:clock:backoff:logger:)``).
    ///
    /// Columns: `id, kind, payload, state, attempts, max_attempts, run_at, locked_until,
    /// last_error, dead_reason, dedupe_key (unique, nullable), created_at, updated_at`; partial
    /// indexes serve claiming queued jobs by `run_at` and reclaiming expired leases.
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
            updated_at timestamptz NOT NULL
        );
        CREATE INDEX \(table)_claim_idx ON \(schema).\(table) (run_at) WHERE state = 'queued';
        CREATE INDEX \(table)_lease_idx ON \(schema).\(table) (locked_until) WHERE state = 'running';
        CREATE INDEX \(table)_dead_idx ON \(schema).\(table) (updated_at) WHERE state = 'dead';
        """
    }
}
