import Foundation

/// What ``JobQueue/fail(_:reason:permanent:)`` did with a failed job.
public enum JobFailureOutcome: Sendable, Equatable {
    /// Queued again, to be claimed no earlier than the given time.
    case retry(at: Date)
    /// Dead-lettered with the given reason.
    case dead(reason: String)
}
