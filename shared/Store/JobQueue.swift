import Foundation
import Logging
import PostgresNIO
import Telemetry
import Tracing

/// A durable job queue in one table of a service's schema (create it with
/// ``migrationSQL(schema:table:)`` in the service's migrations).
///
/// Workers ``claim(kinds:limit:lease:)`` jobs with `FOR UPDATE SKIP LOCKED`, so concurrent
/// claimers get disjoint jobs, and hold them for a lease; a job whose worker died is reclaimed
/// when its lease expires. A finished job is ``complete(_:)``d; a failed one is retried after
/// the ``Backoff`` delay until it runs out of attempts, then dead-lettered with a reason.
/// Every time used by these rules comes from the injected ``WallClock`` (bound as a parameter,
/// never SQL `now()`), so tests drive them with a ``ManualClock``.
public struct JobQueue: Sendable {
    /// The pool to run queries on.
    public let client: PostgresClient
    /// The schema holding the table.
    public let schema: String
    /// The table name.
    public let table: String
    /// The source of "now".
    public let clock: any WallClock
    /// The retry delays.
    public let backoff: Backoff
    /// The logger for queries and job events.
    public let logger: Logger

    /// Creates a queue over `<schema>.<table>`.
    public init(
        client: PostgresClient, schema: String, table: String = "jobs", clock: any WallClock = SystemClock(),
        backoff: Backoff = Backoff(), logger: Logger
    ) {
        self.client = client
        self.schema = schema
        self.table = table
        self.clock = clock
        self.backoff = backoff
        self.logger = logger
    }

    /// Adds a job and returns its id. With a `dedupeKey` already used by a job in this table
    /// (in any state), nothing is added and that job's id is returned. Pass `connection` to
    /// enqueue inside the caller's transaction, so the job exists only if that transaction commits.
    ///
    /// The job keeps `traceparent`, by default the task's current trace context (a request's
    /// handler, an event consumer, another job), as the event log does for events: its runs
    /// are then spans of that trace (``withSpan(of:tracer:isolation:_:)``).
    @discardableResult
    public func enqueue(
        kind: String, payload: Data, runAt: Date? = nil, maxAttempts: Int = 5, dedupeKey: String? = nil,
        traceparent: String? = nil, on connection: PostgresConnection? = nil
    ) async throws -> UUID {
        guard maxAttempts > 0 else {
            throw StoreError(.invalidArgument, "maxAttempts must be positive, got \(maxAttempts)")
        }
        guard let payloadText = String(data: payload, encoding: .utf8) else {
            throw StoreError(.invalidArgument, "payload of \(kind) job is not UTF-8 JSON")
        }
        let name = try qualifiedName()
        let now = clock.now()
        let id = UUID()
        let traceparent = traceparent ?? Self.currentTraceparent
        let work: (PostgresConnection) async throws -> UUID = { connection in
            let inserted = try await connection.fetch(
                """
                INSERT INTO \(unescaped: name)
                    (id, kind, payload, state, attempts, max_attempts, run_at, dedupe_key, created_at, updated_at,
                     traceparent)
                VALUES (\(id), \(kind), \(payloadText)::text::jsonb, 'queued', 0, \(maxAttempts), \(runAt ?? now),
                        \(dedupeKey), \(now), \(now), \(traceparent))
                ON CONFLICT (dedupe_key) DO NOTHING
                RETURNING id
                """,
                logger: logger
            )
            for try await existing in inserted.decode(UUID.self) { return existing }
            let found = try await connection.fetch(
                "SELECT id FROM \(unescaped: name) WHERE dedupe_key = \(dedupeKey)", logger: logger
            )
            for try await existing in found.decode(UUID.self) { return existing }
            throw StoreError(
                .unexpectedResult, "job with dedupe key '\(dedupeKey ?? "")' was neither inserted nor found")
        }
        if let connection { return try await work(connection) }
        return try await client.withConnection { try await work($0) }
    }

    /// The trace context a job queued now keeps when none is given: the `traceparent` of the
    /// task's current span (nil outside a span, so always nil with tracing off, where no span is
    /// made). A service that writes job rows with its own SQL (a batch) stores this in their
    /// `traceparent` column.
    public static var currentTraceparent: String? { Traces.currentTraceparent }

    func qualifiedName() throws -> String {
        let schema = try SQLIdentifier.validated(schema, role: "job queue schema")
        let table = try SQLIdentifier.validated(table, role: "job queue table")
        return "\(schema).\(table)"
    }

    func leaseLost(_ job: Job) -> StoreError {
        StoreError(
            .jobLeaseLost,
            "job \(job.id) (\(job.kind)) attempt \(job.attempts) no longer holds its lease; "
                + "it was reclaimed by another worker or already finished"
        )
    }

    static func columns(prefix p: String) -> String {
        [
            "id", "kind", "payload::text", "state", "attempts", "max_attempts", "run_at", "locked_until",
            "last_error", "dead_reason", "dedupe_key", "created_at", "updated_at", "traceparent",
        ]
        .map { p + $0 }.joined(separator: ", ")
    }

    static func decodeJob(_ row: PostgresRow) throws -> Job {
        let (
            id, kind, payload, state, attempts, maxAttempts, runAt, lockedUntil, lastError, deadReason,
            dedupeKey, createdAt, updatedAt, traceparent
        ) = try row.decode(
            (UUID, String, String, String, Int, Int, Date, Date?, String?, String?, String?, Date, Date, String?).self
        )
        guard let jobState = JobState(rawValue: state) else {
            throw StoreError(.unexpectedResult, "job \(id) has unknown state '\(state)'")
        }
        return Job(
            id: id, kind: kind, payload: Data(payload.utf8), state: jobState, attempts: attempts,
            maxAttempts: maxAttempts, runAt: runAt, lockedUntil: lockedUntil, lastError: lastError,
            deadReason: deadReason, dedupeKey: dedupeKey, createdAt: createdAt, updatedAt: updatedAt,
            traceparent: traceparent
        )
    }
}
