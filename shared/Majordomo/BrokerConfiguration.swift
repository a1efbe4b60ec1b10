/// Everything the broker needs to know, usually read from the environment by the broker executable.
public struct BrokerConfiguration: Sendable, Equatable {
    /// The endpoint clients and workers connect to: `tcp://HOST:PORT` on IPv4 (``ZMTPRouter``).
    public var endpoint: String
    /// Heartbeat interval and liveness for workers.
    public var heartbeat: HeartbeatSettings
    /// How long a request may wait for a worker of its service before the client is told `unavailable`.
    public var requestTimeoutMs: Int64
    /// Requests queued per service before new ones are refused with `unavailable` (back-pressure).
    public var maxQueuedPerService: Int

    /// Creates a configuration; the defaults match the single-machine set-up of `make up`.
    public init(
        endpoint: String = "tcp://127.0.0.1:5555",
        heartbeat: HeartbeatSettings = HeartbeatSettings(),
        requestTimeoutMs: Int64 = 10_000,
        maxQueuedPerService: Int = 100_000
    ) {
        self.endpoint = endpoint
        self.heartbeat = heartbeat
        self.requestTimeoutMs = requestTimeoutMs
        self.maxQueuedPerService = maxQueuedPerService
    }
}
