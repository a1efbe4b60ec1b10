/// Counters the broker keeps, for logs and metrics.
public struct BrokerStatistics: Sendable, Equatable {
    /// Client requests accepted into a queue (MMI requests not included).
    public var requests = 0
    /// Replies forwarded from workers to clients.
    public var replies = 0
    /// Requests answered with an error because no worker took them in time or the queue was full.
    public var expired = 0
    /// Requests lost because the worker holding them died; their clients got `unavailable`.
    public var abandoned = 0
    /// Messages dropped as malformed.
    public var malformed = 0
    /// DISCONNECTs sent to workers for unexpected commands.
    public var disconnects = 0
    /// Workers expired for missing heartbeats.
    public var expiredWorkers = 0

    /// All zero.
    public init() {}
}
