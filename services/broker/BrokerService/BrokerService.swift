import Foundation
import Logging
import Majordomo
import Prometheus
import ServiceKit
import Synchronization
import ServiceLifecycle
import ZeroMQ

/// The broker process: Majordomo (RFC 7 + RFC 8) and the event proxy.
public enum BrokerService {
    static let bind = Setting(
        "BROKER_BIND", default: "tcp://127.0.0.1:5555", "MDP endpoint to bind, tcp://HOST:PORT on IPv4 (tcp://0.0.0.0:5555 in containers)"
    )
    static let xsubBind = Setting(
        "EVENTS_XSUB_BIND", default: "tcp://127.0.0.1:5556", "event proxy input: publishers connect here")
    static let xpubBind = Setting(
        "EVENTS_XPUB_BIND", default: "tcp://127.0.0.1:5557", "event proxy output: subscribers connect here")
    static let requestTimeout = Setting(
        "BROKER_REQUEST_TIMEOUT_MS", default: "10000",
        "how long a request waits for a worker of its service before the client gets 'unavailable'")
    static let maxQueued = Setting(
        "BROKER_MAX_QUEUED", default: "100000", "requests queued per service before new ones are refused")

    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "broker",
        summary: "Majordomo broker (ZeroMQ RFC 7 MDP/0.1 with RFC 8 MMI) and event proxy (XSUB/XPUB)",
        settings: [
            .logLevel, .logFormat, bind, xsubBind, xpubBind, .heartbeatInterval, .heartbeatLiveness, requestTimeout,
            maxQueued, .adminHTTPPort, .adminHTTPHost,
        ],
        probeHelp: "check that the broker at BROKER_BIND answers an MMI request (with ADMIN_HTTP_PORT: its /readyz)")

    /// Reads the broker's configuration from the environment.
    public static func configuration(_ environment: ProcessEnvironment) throws -> BrokerConfiguration {
        BrokerConfiguration(
            endpoint: try environment.required(bind),
            heartbeat: HeartbeatSettings(
                intervalMs: Int64(try environment.int(.heartbeatInterval, in: 10...600_000)),
                liveness: try environment.int(.heartbeatLiveness, in: 1...100)),
            requestTimeoutMs: Int64(try environment.int(requestTimeout, in: 1...86_400_000)),
            maxQueuedPerService: try environment.int(maxQueued, in: 1...10_000_000))
    }

    /// Runs the broker until SIGTERM/SIGINT.
    public static func run(_ environment: ProcessEnvironment, logger: Logger) async throws {
        let context = Context()
        let broker = try Broker(configuration: try configuration(environment), logger: logger)
        let events = try EventProxy(
            publish: try environment.required(xsubBind), subscribe: try environment.required(xpubBind), context: context)
        logger.info(
            "event proxy listening",
            metadata: ["publish": "\(events.publishEndpoint)", "subscribe": "\(events.subscribeEndpoint)"])
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: broker), .init(service: events)]
        if let port = try AdminEndpoint.configuredPort(environment) {
            let metrics = BrokerMetrics(broker: broker)
            services.append(
                .init(
                    service: AdminEndpoint(
                        host: try environment.required(.adminHTTPHost), port: port, registry: metrics.registry,
                        logger: logger, beforeScrape: { await metrics.update() }
                    ) { ["loop": broker.isRunning ? "ok" : "not running"] }))
        }
        let group = ServiceGroup(
            configuration: .init(
                services: services, gracefulShutdownSignals: [.sigterm, .sigint],
                cancellationSignals: [], logger: logger))
        try await group.run()
    }

    /// `--probe`: the broker answers `mmi.service`.
    public static func probe(_ environment: ProcessEnvironment, logger: Logger) async throws {
        if let port = try AdminEndpoint.configuredPort(environment) {
            print(try AdminEndpoint.probe(port: port, name: "broker"))
            return
        }
        let endpoint = connectable(try environment.required(bind))
        let probeEnvironment = ProcessEnvironment(["BROKER_URL": endpoint])
        let served = try await ProbeClient.call(environment: probeEnvironment, logger: logger) { bus in
            try await bus.isServed("broker")
        }
        print("broker ok at \(endpoint) (mmi.service answered \(served ? 200 : 404))")
    }

    /// A bind address turned into one a local client can connect to (`*` and `0.0.0.0` → loopback).
    static func connectable(_ endpoint: String) -> String {
        endpoint.replacingOccurrences(of: "://*:", with: "://127.0.0.1:")
            .replacingOccurrences(of: "://0.0.0.0:", with: "://127.0.0.1:")
    }
}
