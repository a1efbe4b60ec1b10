import Foundation
import Logging
import PostgresNIO

extension JobQueue {
    /// Dead-lettered jobs, most recently dead first.
    public func deadLetters(limit: Int = 100) async throws -> [Job] {
        guard limit > 0 else { throw StoreError(.invalidArgument, "limit must be positive, got \(limit)") }
        let name = try qualifiedName()
        let rows = try await client.query(
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
        let rows = try await client.query(
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
        let rows = try await client.query(
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
