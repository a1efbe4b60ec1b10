extension EventLog {
    /// The migrations that create the event log in schema `events`.
    public static var migrations: [Migration] { migrations(schema: "events") }

    /// The migrations that create the event log in `schema` (apply them with a ``Migrator`` for
    /// the same schema):
    /// - `log(seq, id, topic, producer, payload, request_id, created_at, xid)`, with `xid`
    ///   defaulting to the appending transaction's id and an index on `(xid, seq)`, and (version 2)
    ///   `traceparent`, the W3C trace context of the work that appended the event;
    /// - `consumers(name, last_xid, last_seq, updated_at)`: each consumer's cursor;
    /// - `handled(consumer, event_id, handled_at)`: which consumer has handled which event.
    public static func migrations(schema: String) -> [Migration] {
        [
            Migration(
                version: 1, name: "create_event_log",
                sql: """
                    CREATE TABLE \(schema).log (
                        seq bigserial PRIMARY KEY,
                        id uuid NOT NULL UNIQUE,
                        topic text NOT NULL,
                        producer text NOT NULL,
                        payload jsonb NOT NULL,
                        request_id text,
                        created_at timestamptz NOT NULL,
                        xid xid8 NOT NULL DEFAULT pg_current_xact_id()
                    );
                    CREATE INDEX log_xid_seq_idx ON \(schema).log (xid, seq);

                    CREATE TABLE \(schema).consumers (
                        name text PRIMARY KEY,
                        last_xid xid8 NOT NULL,
                        last_seq bigint NOT NULL,
                        updated_at timestamptz NOT NULL
                    );

                    CREATE TABLE \(schema).handled (
                        consumer text NOT NULL,
                        event_id uuid NOT NULL,
                        handled_at timestamptz NOT NULL,
                        PRIMARY KEY (consumer, event_id)
                    );
                    """),
            Migration(
                version: 2, name: "event_traceparent",
                sql: """
                    ALTER TABLE \(schema).log ADD COLUMN traceparent text;
                    """),
        ]
    }
}
