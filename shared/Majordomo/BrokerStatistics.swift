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

/// One service as the broker sees it, for an operator's metrics.
public struct BrokerServiceFigures: Sendable, Equatable {
    /// The service name.
    public let service: String
    /// Requests waiting for a worker.
    public let queued: Int
    /// Live workers (idle or busy).
    public let workers: Int
    /// Client requests accepted into its queue since the broker started.
    public let accepted: Int

    /// Creates the figures.
    public init(service: String, queued: Int, workers: Int, accepted: Int) {
        self.service = service
        self.queued = queued
        self.workers = workers
        self.accepted = accepted
    }
}
