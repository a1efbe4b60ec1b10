/// Where a job is in its life.
public enum JobState: String, Sendable, Hashable, CaseIterable {
    /// Waiting for its `run_at` and a worker.
    case queued
    /// Claimed by a worker whose lease runs until `locked_until`.
    case running
    /// Finished successfully.
    case done
    /// Gave up: out of attempts, or failed permanently; `dead_reason` says why.
    case dead
}
