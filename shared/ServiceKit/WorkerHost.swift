import Contract
import Foundation
import Logging
import Majordomo
import Prometheus
import ServiceLifecycle
import Synchronization
import Store
import ZeroMQ

/// What a worker service's code gets to build its operations with.
public struct WorkerResources: Sendable {
    /// The service being run.
    public let service: ServiceName
    /// The PostgreSQL pool (already running): stores are built with its `client`.
    public let database: Database
    /// Calls to other services.
    public let bus: BusClient
    /// The shared ZeroMQ context.
    public let context: Context
    /// The process settings.
    public let environment: ProcessEnvironment
    /// The process logger.
    public let logger: Logger
    /// The clock every time rule uses.
    public let clock: any WallClock
    /// The event log, migrated.
    public let events: EventLog
    /// How often event consumers re-read the log without a nudge (`EVENTS_POLL_MS`).
    public let eventsPollInterval: Duration
    /// The admin port's backlog figures, when the port is on: consumers made here are counted.
    let workload: WorkloadMetrics?

    /// A publisher of this service's events (producer ``service``), connected at `EVENTS_PUB_URL`;
    /// return its ``EventPublisher/service`` from ``WorkerDefinition/configure`` so that it runs.
    public func publisher() throws -> EventPublisher {
        EventPublisher(
            log: events, producer: service, context: context, endpoint: try environment.required(.eventsPublishURL))
    }

    /// Transactions across this service's stores, for handlers and jobs.
    public var transactions: Transactions { database.transactions }

    /// A durable consumer of `topics`, subscribed at `EVENTS_SUB_URL`, to return as an extra
    /// service from ``WorkerDefinition/configure``; its handler gets the transaction that records
    /// the event as handled, to pass to stores.
    public func consumer(
        name: String, topics: [String], inTransaction handler: @escaping EventConsumer.Handler
    ) throws -> EventConsumer {
        workload?.watch(consumer: name, topics: topics)
        return EventConsumer(
            name: name, topics: topics, log: events, context: context,
            endpoint: try environment.required(.eventsSubscribeURL), pollInterval: eventsPollInterval, logger: logger,
            handler: handler)
    }
}

/// What a service contributes: its migrations (run at start under an advisory lock) and a
/// function that registers its operations and returns any extra long-lived services
/// (event consumers, job runners).
public struct WorkerDefinition: Sendable {
    /// The MDP service name.
    public let service: ServiceName
    /// The service's own schema migrations, applied to schema `service.rawValue`.
    public let migrations: @Sendable () throws -> [Migration]
    /// Registers operations and returns extra services.
    public let configure: @Sendable (inout OperationRouter, WorkerResources) async throws -> [any Service]

    /// Defines a worker service.
    public init(
        service: ServiceName,
        migrations: @escaping @Sendable () throws -> [Migration] = { [] },
        configure: @escaping @Sendable (inout OperationRouter, WorkerResources) async throws -> [any Service] = {
            _, _ in []
        }
    ) {
        self.service = service
        self.migrations = migrations
        self.configure = configure
    }
}

/// Runs an MDP worker service: PostgreSQL pool, migrations, the `health` operation, the
/// service's own operations, extra services, all in one `ServiceGroup` that drains on SIGTERM.
public enum WorkerHost {
    /// The settings every worker reads.
    public static let settings = Setting.workerCommon

    /// Runs `definition` until SIGTERM/SIGINT.
    public static func run(
        _ definition: WorkerDefinition, environment: ProcessEnvironment, logger: Logger,
        clock: any WallClock = SystemClock()
    ) async throws {
        let common = try CommonSettings(environment)
        var database = common.database
        // Named after this process unless the operator named it, so the admin port can count
        // this process's own connections in `pg_stat_activity` (63 bytes at most).
        if database.applicationName == nil {
            database.applicationName = String(
                "\(definition.service.rawValue)-\(Self.instance)".replacingOccurrences(of: ":", with: "-").prefix(63))
        }
        let (heartbeat, concurrency, handlerStart) = (common.heartbeat, common.concurrency, common.handlerStart)
        let (stallSeconds, timeout, eventsPoll) = (common.stallSeconds, common.timeout, common.eventsPoll)
        let context = Context()
        let pool = Database(settings: database, logger: logger)
        let brokerEndpoint = common.brokerEndpoint
        let brokerURL = brokerEndpoint.description
        // Calls to other services run on NIO's shared event loops, beside PostgreSQL's connections.
        let mdpClient = MajordomoClient(brokerEndpoint, logger: logger)
        let started = Date()
        let adminPort = common.adminPort
        let registry = PrometheusCollectorRegistry()
        // The worker, once the start-up made it: the admin port's readiness asks it whether the
        // broker is hearing from it.
        let running = Mutex<MajordomoWorker?>(nil)
        let events = pool.eventLog(clock: clock)
        let workload = adminPort.map { _ in
            WorkloadMetrics(
                service: definition.service.rawValue, registry: registry, database: pool, events: events,
                applicationName: database.applicationName ?? "",
                clock: clock, logger: logger)
        }
        logger.info(
            "starting",
            metadata: [
                "database": "\(database.redactedURL)", "broker": "\(brokerURL)",
                "concurrency": "\(concurrency)", "handlerStart": "\(handlerStart.rawValue)",
            ])

        let startup = StartupService(logger: logger) {
            try await events.migrate()
            let applied = try await pool.migrate(schema: definition.service.rawValue, try definition.migrations())
            if !applied.isEmpty { logger.info("migrations applied", metadata: ["versions": "\(applied)"]) }
            var router = OperationRouter(service: definition.service, logger: logger, clock: clock)
            if adminPort != nil { router.metrics = OperationMetrics(service: definition.service.rawValue, registry: registry) }
            router.register(Health.self) { _, _ in
                let database = await pool.check()
                return HealthReport(
                    service: definition.service.rawValue, status: database == "ok" ? "ok" : "degraded",
                    instance: Self.instance, uptimeSeconds: Int64(Date().timeIntervalSince(started)),
                    checks: ["database": database])
            }
            JobAdministrationHandlers.register(
                on: &router, database: pool, schema: definition.service.rawValue, clock: clock)
            let resources = WorkerResources(
                service: definition.service, database: pool,
                bus: BusClient(client: mdpClient, defaultTimeout: timeout),
                context: context, environment: environment, logger: logger, clock: clock, events: events,
                eventsPollInterval: eventsPoll, workload: workload)
            let extra = try await definition.configure(&router, resources)
            let handler = router
            var handle: MajordomoWorker.Handler = { body in await handler.handle(body) }
            var watch: [any Service] = []
            if stallSeconds > 0 {
                let stalls = HandlerWatch(limitMs: Int64(stallSeconds) * 1000) { stall in
                    logger.critical(
                        "request handler stuck: no answer for too long; ending the process to be restarted",
                        metadata: [
                            "mdpService": "\(definition.service.rawValue)", "operation": "\(stall.operation)",
                            "runningSeconds": "\(stall.runningMs / 1000)", "running": "\(stall.running)",
                        ])
                    exit(75)
                }
                handle = stalls.watching(handle)
                watch = [stalls]
            }
            let worker = MajordomoWorker(
                endpoint: brokerURL, service: definition.service.rawValue,
                concurrency: concurrency, handlerStart: handlerStart,
                quickOperations: router.quickOperations, heartbeat: heartbeat, logger: logger, handler: handle)
            running.withLock { $0 = worker }
            return extra + watch + [worker]
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: pool.service), .init(service: mdpClient), .init(service: startup),
        ]
        if let adminPort {
            let admin = AdminEndpoint(
                host: try environment.required(.adminHTTPHost), port: adminPort, registry: registry, logger: logger,
                beforeScrape: { await workload?.update() }
            ) {
                let database = await pool.check()
                let broker: String
                switch running.withLock({ $0 }) {
                case nil: broker = "starting (migrations and set-up not finished)"
                case let worker?:
                    if let silence = worker.millisecondsSinceBrokerSpoke, silence <= worker.brokerExpiryMs {
                        broker = "ok"
                    } else {
                        broker = "not registered: no word from the broker within \(worker.brokerExpiryMs) ms"
                    }
                }
                return ["database": database, "broker": broker]
            }
            services.append(.init(service: admin))
        }
        let group = ServiceGroup(
            configuration: .init(
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                cancellationSignals: [],
                logger: logger))
        try await group.run()
    }

    /// The settings every worker reads, read and checked as ``run(_:environment:logger:clock:)``
    /// uses them; `backplane-admin check-config` reads them the same way without starting anything.
    public struct CommonSettings: Sendable {
        public let database: DatabaseSettings
        public let heartbeat: HeartbeatSettings
        public let concurrency: Int
        public let handlerStart: MajordomoWorker.HandlerStart
        public let stallSeconds: Int
        public let timeout: Duration
        public let eventsPoll: Duration
        public let brokerEndpoint: MajordomoClient.Endpoint
        public let adminPort: Int?

        public init(_ environment: ProcessEnvironment) throws {
            database = try DatabaseSettings(url: try environment.required(.databaseURL))
            heartbeat = HeartbeatSettings(
                intervalMs: Int64(try environment.int(.heartbeatInterval, in: 10...600_000)),
                liveness: try environment.int(.heartbeatLiveness, in: 1...100))
            concurrency = try environment.int(.workerConcurrency, in: 1...1024)
            handlerStart = try environment.choice(.workerHandlerStart, as: MajordomoWorker.HandlerStart.self)
            stallSeconds = try environment.int(.workerStall, in: 0...86_400)
            timeout = Duration.milliseconds(try environment.int(.requestTimeout, in: 1...3_600_000))
            eventsPoll = Duration.milliseconds(try environment.int(.eventsPoll, in: 10...3_600_000))
            brokerEndpoint = try environment.brokerEndpoint()
            adminPort = try WorkerHost.adminPort(environment)
        }
    }

    /// `host:pid`, to tell replicas apart.
    public static let instance = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"

    static func adminPort(_ environment: ProcessEnvironment) throws -> Int? {
        try AdminEndpoint.configuredPort(environment)
    }

    /// `--probe`: with `ADMIN_HTTP_PORT`, this process's own `/readyz`; without, the service's
    /// `health` operation through the broker (which any replica may answer).
    public static func probe(_ service: ServiceName, environment: ProcessEnvironment, logger: Logger) async throws {
        if let port = try adminPort(environment) {
            print(try AdminEndpoint.probe(port: port, name: "\(service)"))
            return
        }
        let report = try await ProbeClient.call(environment: environment, logger: logger) { bus in
            try await bus.call(
                Health.self, on: service, Empty(), metadata: RequestMetadata(requestId: "probe-\(UUID().uuidString)"),
                timeout: .seconds(3))
        }
        guard report.status == "ok" else {
            throw ServiceError(.unavailable, "\(service) is \(report.status): \(report.checks)")
        }
        print("\(service) ok (\(report.instance))")
    }
}

extension WorkerHost {
    /// The whole `main` of a worker executable: `--help`, `--probe`, or run until SIGTERM.
    public static func main(_ spec: ProcessSpec, _ definition: WorkerDefinition) async -> Never {
        await Launcher.main(
            spec,
            probe: { environment, logger in
                try await probe(definition.service, environment: environment, logger: logger)
            },
            run: { environment, logger in try await run(definition, environment: environment, logger: logger) })
    }
}
