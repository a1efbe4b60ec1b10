/// Counters the broker keeps, for logs and metrics.
public struct BrokerStatistics: Sendable, Equatable {
    /// Excludes MMI requests.
    public var requests = 0
    public var replies = 0
    /// Requests refused: no worker took them in time, or the queue was full.
    public var expired = 0
    /// Requests lost with the worker holding them; their clients got `unavailable`.
    public var abandoned = 0
    public var malformed = 0
    public var disconnects = 0
    public var expiredWorkers = 0

    public init() {}
}

/// One service as the broker sees it, for an operator's metrics.
public struct BrokerServiceFigures: Sendable, Equatable {
    public let service: String
    public let queued: Int
    public let workers: Int
    /// Requests accepted since the broker started.
    public let accepted: Int

    public init(service: String, queued: Int, workers: Int, accepted: Int) {
        self.service = service
        self.queued = queued
        self.workers = workers
        self.accepted = accepted
    }
}
