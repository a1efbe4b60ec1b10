/// Which code speaks ZeroMQ on the broker's MDP endpoint.
public enum BrokerEngine: String, Sendable, Equatable, CaseIterable {
    /// ``native`` for `tcp://` endpoints, ``libzmq`` for the others.
    case automatic = "auto"
    /// The broker's thread speaks ZMTP itself (``ZMTPRouter``): `tcp://` endpoints on IPv4 only.
    case native
    /// A libzmq ROUTER socket: every transport libzmq has (`ipc://`, `inproc://`, IPv6, ...).
    case libzmq

    /// What `automatic` means for `endpoint`.
    public func resolved(for endpoint: String) -> BrokerEngine {
        guard self == .automatic else { return self }
        return endpoint.hasPrefix("tcp://") && !endpoint.contains("[") ? .native : .libzmq
    }
}

/// Everything the broker needs to know, usually read from the environment by the broker executable.
public struct BrokerConfiguration: Sendable, Equatable {
    /// The ROUTER endpoint clients and workers connect to.
    public var endpoint: String
    /// Where publishers connect (the XSUB side of the event proxy); `nil` runs no proxy.
    public var eventsPublishEndpoint: String?
    /// Where subscribers connect (the XPUB side of the event proxy).
    public var eventsSubscribeEndpoint: String?
    /// Heartbeat interval and liveness for workers.
    public var heartbeat: HeartbeatSettings
    /// How long a request may wait for a worker of its service before the client is told `unavailable`.
    public var requestTimeoutMs: Int64
    /// Requests queued per service before new ones are refused with `unavailable` (back-pressure).
    public var maxQueuedPerService: Int
    /// Which code serves ``endpoint``.
    public var engine: BrokerEngine

    /// Creates a configuration; the defaults match the single-machine set-up of `make up`.
    public init(
        endpoint: String = "tcp://127.0.0.1:5555",
        eventsPublishEndpoint: String? = "tcp://127.0.0.1:5556",
        eventsSubscribeEndpoint: String? = "tcp://127.0.0.1:5557",
        heartbeat: HeartbeatSettings = HeartbeatSettings(),
        requestTimeoutMs: Int64 = 10_000,
        maxQueuedPerService: Int = 100_000,
        engine: BrokerEngine = .automatic
    ) {
        self.endpoint = endpoint
        self.eventsPublishEndpoint = eventsPublishEndpoint
        self.eventsSubscribeEndpoint = eventsSubscribeEndpoint
        self.heartbeat = heartbeat
        self.requestTimeoutMs = requestTimeoutMs
        self.maxQueuedPerService = maxQueuedPerService
        self.engine = engine
    }
}
