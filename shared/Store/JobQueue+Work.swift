import Foundation
import Logging
import PostgresNIO

extension JobQueue {
    /// Claims up to `limit` jobs that are due (queued with `run_at` reached) or abandoned
    /// (running with an expired lease and attempts left), oldest `run_at` first, optionally only
    /// of the given `kinds`. Each claimed job becomes `running` with its attempts incremented and
    /// a lease of `lease` seconds. Abandoned jobs with no attempts left are dead-lettered first.
    public func claim(kinds: [String]? = nil, limit: Int = 1, lease: TimeInterval) async throws -> [Job] {
        guard limit > 0 else { throw StoreError(.invalidArgument, "claim limit must be positive, got \(limit)") }
        guard lease > 0 else { throw StoreError(.invalidArgument, "lease must be positive, got \(lease)") }
        let name = try qualifiedName()
        let now = clock.now()
        try await buryAbandoned(name: name, now: now)
        let rows = try await client.fetch(
            """
            WITH picked AS (
                SELECT id FROM \(unescaped: name)
                WHERE ((state = 'queued' AND run_at <= \(now))
                       OR (state = 'running' AND locked_until <= \(now) AND attempts < max_attempts))
                  AND (\(kinds == nil) OR kind = ANY(\(kinds ?? [])))
                ORDER BY run_at, id
                LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
            )
            UPDATE \(unescaped: name) AS j
            SET state = 'running',
                attempts = j.attempts + 1,
                locked_until = \(now.addingTimeInterval(lease)),
                last_error = CASE WHEN j.state = 'running' THEN 'lease expired (worker lost)' ELSE j.last_error END,
                updated_at = \(now)
            FROM picked
            WHERE j.id = picked.id
            RETURNING \(unescaped: Self.columns(prefix: "j."))
            """,
            logger: logger
        )
        var jobs: [Job] = []
        for try await row in rows { jobs.append(try Self.decodeJob(row)) }
        jobs.sort { ($0.runAt, $0.id.uuidString) < ($1.runAt, $1.id.uuidString) }
        return jobs
    }

    /// Marks a claimed job `done`. Throws ``StoreError/Code/jobLeaseLost`` if this claim no
    /// longer holds the job (it was reclaimed after its lease expired, or already finished).
    public func complete(_ job: Job) async throws {
        let name = try qualifiedName()
        let now = clock.now()
        let rows = try await client.fetch(
            """
            UPDATE \(unescaped: name) SET state = 'done', locked_until = NULL, updated_at = \(now)
            WHERE id = \(job.id) AND state = 'running' AND attempts = \(job.attempts)
            RETURNING id
            """,
            logger: logger
        )
        var updated = false
        for try await _ in rows { updated = true }
        guard updated else { throw leaseLost(job) }
    }

    /// Records a failed attempt of a claimed job. With attempts left (and not `permanent`), the
    /// job is queued again at `now + backoff.delay(afterAttempt: job.attempts)`; otherwise it is
    /// dead-lettered with `reason` as its dead reason. Throws ``StoreError/Code/jobLeaseLost``
    /// if this claim no longer holds the job.
    @discardableResult
    public func fail(_ job: Job, reason: String, permanent: Bool = false) async throws -> JobFailureOutcome {
        let name = try qualifiedName()
        let now = clock.now()
        let retryAt = now.addingTimeInterval(backoff.delay(afterAttempt: job.attempts))
        let rows = try await client.fetch(
            """
            UPDATE \(unescaped: name) SET
                state = CASE WHEN \(permanent) OR attempts >= max_attempts THEN 'dead' ELSE 'queued' END,
                run_at = CASE WHEN \(permanent) OR attempts >= max_attempts THEN run_at ELSE \(retryAt) END,
                dead_reason = CASE WHEN \(permanent) OR attempts >= max_attempts THEN \(reason) ELSE NULL END,
                last_error = \(reason),
                locked_until = NULL,
                updated_at = \(now)
            WHERE id = \(job.id) AND state = 'running' AND attempts = \(job.attempts)
            RETURNING state, run_at
            """,
            logger: logger
        )
        for try await (state, runAt) in rows.decode((String, Date).self) {
            if state == JobState.dead.rawValue {
                logger.warning(
                    "job dead-lettered",
                    metadata: [
                        "jobId": "\(job.id)", "kind": "\(job.kind)", "attempts": "\(job.attempts)",
                        "reason": "\(reason)",
                    ])
                return .dead(reason: reason)
            }
            logger.info(
                "job will be retried",
                metadata: [
                    "jobId": "\(job.id)", "kind": "\(job.kind)", "attempts": "\(job.attempts)", "runAt": "\(runAt)",
                ])
            return .retry(at: runAt)
        }
        throw leaseLost(job)
    }

    /// Dead-letters running jobs whose lease expired on their last attempt.
    private func buryAbandoned(name: String, now: Date) async throws {
        let rows = try await client.fetch(
            """
            UPDATE \(unescaped: name) SET
                state = 'dead',
                dead_reason = 'lease expired on attempt ' || attempts || ' of ' || max_attempts || ' (worker lost)',
                last_error = 'lease expired (worker lost)',
                locked_until = NULL,
                updated_at = \(now)
            WHERE state = 'running' AND locked_until <= \(now) AND attempts >= max_attempts
            RETURNING id, kind
            """,
            logger: logger
        )
        for try await (id, kind) in rows.decode((UUID, String).self) {
            logger.warning(
                "job dead-lettered: lease expired on its last attempt",
                metadata: [
                    "jobId": "\(id)", "kind": "\(kind)",
                ])
        }
    }
}
