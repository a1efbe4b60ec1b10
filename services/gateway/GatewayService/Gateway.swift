import Contract
import Foundation
import Hummingbird
import Logging
import Majordomo
import Metrics
import OpenAPIHummingbird
import Prometheus
import ServiceKit
import ServiceLifecycle
import ZeroMQ

/// Builds and runs the HTTP gateway.
public enum Gateway {
    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "gateway",
        summary: "HTTP/JSON gateway: authenticates, validates, and turns each call into one MDP request",
        settings: GatewaySettings.all,
        probeHelp: "check that the gateway at HTTP_HOST:HTTP_PORT answers GET /healthz")

    /// The OpenAPI document served at `/openapi.yaml`.
    public static func openAPIDocument() throws -> [UInt8] {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
            throw ServiceError(.internal, "openapi.yaml is missing from the gateway's resources")
        }
        return Array(try Data(contentsOf: url))
    }

    /// The application: routes, middleware and the server configuration. Tests build the same one.
    public static func buildApplication(
        settings: GatewaySettings, bus: BusClient, registry: PrometheusCollectorRegistry, logger: Logger,
        services: [any Service] = []
    ) throws -> some ApplicationProtocol {
        let router = Router()
        router.add(middleware: RequestIDMiddleware(logger: logger))
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: ErrorMiddleware(logger: logger))
        let api = GatewayAPI(bus: bus, settings: settings, registry: registry, document: try openAPIDocument())
        router.add(middleware: MethodNotAllowedMiddleware(routes: try RouteTable(registeredBy: api)))
        let verifier = AccessTokenVerifier(bus: bus)
        router.add(middleware: AuthenticationMiddleware(verifier: verifier))
        // Compact JSON: the runtime's default pretty printing costs CPU and bytes on every
        // response and tells a phone nothing more. Keys stay sorted so that a body is the same
        // bytes every time (the answers to reset requests must not differ by account).
        try api.registerHandlers(
            on: router,
            configuration: .init(dateTranscoder: RFC3339DateTranscoder(), jsonEncodingOptions: [.sortedKeys]))
        var app = Application(
            router: router,
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "backplane"),
            logger: logger)
        app.addServices(TokenKeyPrefetch(verifier: verifier))
        for service in services { app.addServices(service) }
        return app
    }

    /// Runs the gateway until SIGTERM/SIGINT.
    public static func run(_ environment: ProcessEnvironment, logger: Logger) async throws {
        let settings = try GatewaySettings(environment)
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[AuthenticationMiddleware<BasicRequestContext>.verificationMetric] = [
            .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
            .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(50),
        ]
        MetricsSystem.bootstrap(factory)
        let client = MajordomoClient(endpoint: settings.brokerURL, context: Context(), logger: logger)
        let bus = BusClient(client: client, defaultTimeout: settings.requestTimeout)
        let app = try buildApplication(
            settings: settings, bus: bus, registry: registry, logger: logger, services: [client])
        logger.info(
            "gateway listening",
            metadata: ["url": "http://\(settings.host):\(settings.port)", "broker": "\(settings.brokerURL)"])
        try await app.runService()
    }

    /// `--probe`: `GET /healthz` answers 200.
    public static func probe(_ environment: ProcessEnvironment, logger: Logger) async throws {
        let settings = try GatewaySettings(environment)
        let host = settings.host == "0.0.0.0" ? "127.0.0.1" : settings.host
        let status = try HTTPProbe.status(host: host, port: settings.port, path: "/healthz")
        guard status == 200 else { throw ServiceError(.unavailable, "GET /healthz answered \(status)") }
        print("gateway ok at http://\(host):\(settings.port)")
    }
}
