import Foundation
import Logging
import PostgresNIO

extension JobQueue {
    /// Dead-lettered jobs, most recently dead first.
    public func deadLetters(limit: Int = 100) async throws -> [Job] {
        guard limit > 0 else { throw StoreError(.invalidArgument, "limit must be positive, got \(limit)") }
        let name = try qualifiedName()
        let rows = try await client.fetch(
            """
            SELECT \(unescaped: Self.columns(prefix: "")) FROM \(unescaped: name)
            WHERE state = 'dead' ORDER BY updated_at DESC, id LIMIT \(limit)
            """,
            logger: logger
        )
        var jobs: [Job] = []
        for try await row in rows { jobs.append(try Self.decodeJob(row)) }
        return jobs
    }

    /// The job with `id`, or nil.
    public func job(id: UUID) async throws -> Job? {
        let name = try qualifiedName()
        let rows = try await client.fetch(
            "SELECT \(unescaped: Self.columns(prefix: "")) FROM \(unescaped: name) WHERE id = \(id)",
            logger: logger
        )
        for try await row in rows { return try Self.decodeJob(row) }
        return nil
    }

    /// How many jobs are in each state (every state is present, zero if none).
    public func counts() async throws -> [JobState: Int] {
        let name = try qualifiedName()
        var counts = Dictionary(uniqueKeysWithValues: JobState.allCases.map { ($0, 0) })
        let rows = try await client.fetch(
            "SELECT state, count(*) FROM \(unescaped: name) GROUP BY state", logger: logger
        )
        for try await (state, count) in rows.decode((String, Int).self) {
            guard let known = JobState(rawValue: state) else {
                throw StoreError(.unexpectedResult, "unknown job state '\(state)' in \(name)")
            }
            counts[known] = count
        }
        return counts
    }
}

/// A job table's figures for an operator: what waits, what runs, what died, and how long the
/// oldest job due has waited.
public struct QueueDepth: Sendable, Equatable {
    /// Jobs waiting (due now or later).
    public let queued: Int
    /// Jobs a worker holds a lease on.
    public let running: Int
    /// Dead letters: jobs that used their attempts or were refused for good.
    public let dead: Int
    /// The `run_at` of the oldest queued job that is due, or nil when none is due.
    public let oldestDue: Date?

    /// Creates the figures.
    public init(queued: Int, running: Int, dead: Int, oldestDue: Date?) {
        self.queued = queued
        self.running = running
        self.dead = dead
        self.oldestDue = oldestDue
    }
}

extension JobQueue {
    /// Queued, running and dead jobs and the oldest due job, each read through the table's
    /// partial index for that state, so a table of many finished jobs costs nothing extra.
    public func depth() async throws -> QueueDepth {
        let name = try qualifiedName()
        let now = clock.now()
        let rows = try await client.fetch(
            """
            SELECT (SELECT count(*) FROM \(unescaped: name) WHERE state = 'queued'),
                   (SELECT count(*) FROM \(unescaped: name) WHERE state = 'running'),
                   (SELECT count(*) FROM \(unescaped: name) WHERE state = 'dead'),
                   (SELECT min(run_at) FROM \(unescaped: name) WHERE state = 'queued' AND run_at <= \(now))
            """,
            logger: logger
        )
        for try await (queued, running, dead, oldest) in rows.decode((Int, Int, Int, Date?).self) {
            return QueueDepth(queued: queued, running: running, dead: dead, oldestDue: oldest)
        }
        throw StoreError(.unexpectedResult, "no figures came back for \(name)")
    }

    /// The job tables in `schema`: every table with the columns ``migrationSQL(schema:table:)``
    /// creates, in name order.
    public static func tables(in schema: String, client: PostgresClient, logger: Logger) async throws -> [String] {
        let rows = try await client.fetch(
            """
            SELECT table_name::text FROM information_schema.columns
            WHERE table_schema = \(schema) AND column_name IN ('dead_reason', 'locked_until', 'max_attempts', 'dedupe_key')
            GROUP BY table_name HAVING count(*) = 4 ORDER BY table_name
            """,
            logger: logger
        )
        var tables: [String] = []
        for try await table in rows.decode(String.self) { tables.append(table) }
        return tables
    }
}

extension JobQueue {
    /// Gives a dead letter a new life: queued again, due now, with a full set of attempts (its
    /// last error kept, its dead reason cleared). Returns the job as it now is, or nil when no
    /// job `id` is dead in this table (never was, was retried already, or was discarded).
    public func retryDead(id: UUID) async throws -> Job? {
        let name = try qualifiedName()
        let now = clock.now()
        let rows = try await client.fetch(
            """
            UPDATE \(unescaped: name) SET state = 'queued', attempts = 0, run_at = \(now), dead_reason = NULL,
                locked_until = NULL, updated_at = \(now)
            WHERE id = \(id) AND state = 'dead'
            RETURNING \(unescaped: Self.columns(prefix: ""))
            """,
            logger: logger
        )
        for try await row in rows {
            let job = try Self.decodeJob(row)
            logger.notice("dead letter queued again", metadata: ["jobId": "\(job.id)", "kind": "\(job.kind)"])
            return job
        }
        return nil
    }

    /// Deletes a dead letter for good. True when job `id` was dead in this table and is gone;
    /// false when there was no such dead job (a job in any other state is left alone).
    public func discardDead(id: UUID) async throws -> Bool {
        let name = try qualifiedName()
        let rows = try await client.fetch(
            "DELETE FROM \(unescaped: name) WHERE id = \(id) AND state = 'dead' RETURNING kind", logger: logger
        )
        for try await kind in rows.decode(String.self) {
            logger.notice("dead letter discarded", metadata: ["jobId": "\(id)", "kind": "\(kind)"])
            return true
        }
        return false
    }
}
