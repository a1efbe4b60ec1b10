/// One environment variable a process reads: its name, default and what it is for.
///
/// Each executable lists its settings; `--help` prints them, so the documentation cannot drift
/// from what the code reads.
public struct Setting: Sendable, Hashable {
    /// The variable name, e.g. `BROKER_URL`.
    public let name: String
    /// The value used when the variable is unset; `nil` means "unset is meaningful".
    public let defaultValue: String?
    /// One line for `--help`.
    public let help: String
    /// Whether the value must never be printed or logged.
    public let isSecret: Bool
    /// Names the setting had before, still read (converted) with a warning at start.
    public let formerly: [FormerName]

    /// An earlier name of a setting, and how its value converts: a duration once given in hours
    /// is now given in seconds, so `IDEMPOTENCY_KEY_HOURS=24` reads as `IDEMPOTENCY_KEY_S=86400`.
    public struct FormerName: Sendable, Hashable {
        public let name: String
        /// The new value is the old one times this (1: same unit).
        public let scale: Int

        public init(_ name: String, scale: Int = 1) {
            self.name = name
            self.scale = scale
        }

        /// The old value in the new unit; a value that is not a whole number is passed on as it
        /// is, for the setting's own check to refuse by name.
        func convert(_ value: String) -> String {
            guard scale != 1, let number = Int(value.trimmingCharacters(in: .whitespaces)) else { return value }
            let (product, overflow) = number.multipliedReportingOverflow(by: scale)
            return overflow ? value : String(product)
        }
    }

    /// Declares a setting.
    public init(
        _ name: String, default defaultValue: String?, _ help: String, secret: Bool = false,
        formerly: [FormerName] = []
    ) {
        self.name = name
        self.defaultValue = defaultValue
        self.help = help
        self.isSecret = secret
        self.formerly = formerly
    }
}

extension Setting {
    /// `LOG_LEVEL`: trace, debug, info, notice, warning, error, critical.
    public static let logLevel = Setting("LOG_LEVEL", default: "info", "trace|debug|info|notice|warning|error|critical")
    /// `LOG_FORMAT`: one JSON object per line, or plain text for a terminal.
    public static let logFormat = Setting("LOG_FORMAT", default: "json", "json (one object per line) or text")
    /// `BROKER_URL`: where the Majordomo broker listens.
    public static let brokerURL = Setting("BROKER_URL", default: "tcp://127.0.0.1:5555", "the broker's MDP endpoint")
    /// `EVENTS_PUB_URL`: the broker's XSUB side, where services publish events.
    public static let eventsPublishURL = Setting(
        "EVENTS_PUB_URL", default: "tcp://127.0.0.1:5556", "where events are published (broker XSUB)")
    /// `EVENTS_SUB_URL`: the broker's XPUB side, where services subscribe.
    public static let eventsSubscribeURL = Setting(
        "EVENTS_SUB_URL", default: "tcp://127.0.0.1:5557", "where events are received (broker XPUB)")
    /// `DATABASE_URL`: the shared PostgreSQL.
    public static let databaseURL = Setting(
        "DATABASE_URL", default: "postgres://backplane:backplane@127.0.0.1:5432/backplane",
        "PostgreSQL connection URL (password is never logged)", secret: true)
    /// `HEARTBEAT_INTERVAL_MS`: MDP heartbeat interval; must match the broker's.
    public static let heartbeatInterval = Setting(
        "HEARTBEAT_INTERVAL_MS", default: "2500", "MDP heartbeat interval in ms (same on broker and workers)")
    /// `HEARTBEAT_LIVENESS`: missed heartbeats before a peer counts as dead.
    public static let heartbeatLiveness = Setting(
        "HEARTBEAT_LIVENESS", default: "3", "missed heartbeats before a peer counts as dead")
    /// `WORKER_CONCURRENCY`: requests one worker process handles at once.
    public static let workerConcurrency = Setting(
        "WORKER_CONCURRENCY", default: "8", "requests this process handles at once (MDP worker slots)")
    /// `WORKER_HANDLER_START`: where a request's handler begins (see `MajordomoWorker.HandlerStart`).
    public static let workerHandlerStart = Setting(
        "WORKER_HANDLER_START", default: "auto",
        "where handlers start: auto (the service's quick reads from memory on the worker's I/O thread, every other operation on Swift's task pool), pool (every one on the pool) or io-thread (every one on the I/O thread until it first waits)")
    /// `WORKER_STALL_S`: how long a request handler may run before the process counts it stuck.
    public static let workerStall = Setting(
        "WORKER_STALL_S", default: "300",
        "a request handler still running after this many seconds is taken as stuck on a wait that will never end, and the process exits with status 75 for its supervisor to restart it; 0: never")
    /// `REQUEST_TIMEOUT_MS`: how long a caller waits for another service.
    public static let requestTimeout = Setting(
        "REQUEST_TIMEOUT_MS", default: "10000", "deadline for a call to another service, in ms")
    /// `EVENTS_POLL_MS`: how often an event consumer looks at the event log without a nudge.
    public static let eventsPoll = Setting(
        "EVENTS_POLL_MS", default: "1000", "event consumers re-read the event log at least this often, in ms")
    /// `ADMIN_HTTP_PORT`: the process's own operator port (`/healthz`, `/readyz`, `/metrics`).
    public static let adminHTTPPort = Setting(
        "ADMIN_HTTP_PORT", default: "",
        "this process's own HTTP port for /healthz, /readyz and /metrics (never the public API); empty: none, and --probe asks through the broker")
    /// `ADMIN_HTTP_HOST`: where the admin port listens.
    public static let adminHTTPHost = Setting(
        "ADMIN_HTTP_HOST", default: "127.0.0.1", "address the admin port listens on (0.0.0.0 in a container)")

    /// `OTEL_EXPORTER_OTLP_ENDPOINT`: where spans go (OTLP/HTTP); unset: tracing off.
    public static let otlpEndpoint = Setting(
        "OTEL_EXPORTER_OTLP_ENDPOINT", default: "",
        "OTLP/HTTP collector base URL, e.g. http://otel-collector:4318 (spans are POSTed to <url>/v1/traces); empty: tracing off")
    /// `OTEL_EXPORTER_OTLP_PROTOCOL`: the OTLP encoding; only protobuf over HTTP is built in.
    public static let otlpProtocol = Setting(
        "OTEL_EXPORTER_OTLP_PROTOCOL", default: "http/protobuf", "http/protobuf, the only OTLP protocol built in")
    /// `OTEL_SERVICE_NAME`: the `service.name` of this process's spans.
    public static let otelServiceName = Setting(
        "OTEL_SERVICE_NAME", default: "", "service.name on this process's spans; empty: the executable's name")
    /// `OTEL_TRACES_SAMPLER`: which new traces are recorded.
    public static let otelSampler = Setting(
        "OTEL_TRACES_SAMPLER", default: "parentbased_always_on",
        "parentbased_always_on, parentbased_always_off, parentbased_traceidratio, always_on, always_off or traceidratio")
    /// `OTEL_TRACES_SAMPLER_ARG`: the ratio of a `*traceidratio` sampler.
    public static let otelSamplerArgument = Setting(
        "OTEL_TRACES_SAMPLER_ARG", default: "1.0", "the fraction (0 to 1) of new traces a *traceidratio sampler records")
    /// `OTEL_BSP_SCHEDULE_DELAY`: how often the span exporter sends.
    public static let otelScheduleDelay = Setting(
        "OTEL_BSP_SCHEDULE_DELAY", default: "5000", "the span exporter sends at least this often, in ms")
    /// `OTEL_BSP_MAX_QUEUE_SIZE`: spans held for the exporter before new ones are dropped.
    public static let otelMaxQueue = Setting(
        "OTEL_BSP_MAX_QUEUE_SIZE", default: "2048",
        "ended spans held for the exporter; when full, new spans are dropped")

    /// The tracing settings every process reads.
    public static let tracing: [Setting] = [
        .otlpEndpoint, .otlpProtocol, .otelServiceName, .otelSampler, .otelSamplerArgument, .otelScheduleDelay, .otelMaxQueue,
    ]

    /// What every MDP worker service reads.
    public static let workerCommon: [Setting] = [
        .logLevel, .logFormat, .brokerURL, .eventsPublishURL, .eventsSubscribeURL, .databaseURL,
        .heartbeatInterval, .heartbeatLiveness, .workerConcurrency, .workerHandlerStart, .workerStall,
        .requestTimeout,
        .eventsPoll, .adminHTTPPort, .adminHTTPHost,
    ] + tracing
}
