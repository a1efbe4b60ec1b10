import Foundation

/// A row of a job queue table.
public struct Job: Sendable, Equatable {
    /// Unique id.
    public let id: UUID
    /// What to do, e.g. `render_postcard`; workers dispatch on it.
    public let kind: String
    /// The job's input, a JSON document as UTF-8 bytes.
    public let payload: Data
    /// Its state when read.
    public let state: JobState
    /// How many times it has been claimed, counting the current claim.
    public let attempts: Int
    /// How many claims it gets before it is dead-lettered.
    public let maxAttempts: Int
    /// Not claimed before this time.
    public let runAt: Date
    /// While `running`: when the worker's lease expires and another worker may reclaim it.
    public let lockedUntil: Date?
    /// The reason given by the last failed attempt, if any.
    public let lastError: String?
    /// Why it was dead-lettered, when `dead`.
    public let deadReason: String?
    /// The key that makes enqueueing idempotent, if one was given.
    public let dedupeKey: String?
    /// When it was enqueued.
    public let createdAt: Date
    /// When its row last changed.
    public let updatedAt: Date
    /// The W3C `traceparent` of the work that queued it, when that was traced: a run of the job
    /// is a child span of it (see ``JobQueue/run(_:_:)``).
    public let traceparent: String?

    /// Creates a job value (normally only ``JobQueue`` does).
    public init(
        id: UUID, kind: String, payload: Data, state: JobState, attempts: Int, maxAttempts: Int,
        runAt: Date, lockedUntil: Date?, lastError: String?, deadReason: String?, dedupeKey: String?,
        createdAt: Date, updatedAt: Date, traceparent: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.payload = payload
        self.state = state
        self.attempts = attempts
        self.maxAttempts = maxAttempts
        self.runAt = runAt
        self.lockedUntil = lockedUntil
        self.lastError = lastError
        self.deadReason = deadReason
        self.dedupeKey = dedupeKey
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.traceparent = traceparent
    }
}
