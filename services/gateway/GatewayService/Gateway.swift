import Contract
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import Majordomo
import Metrics
import NIOCore
import NIOPosix
import OpenAPIHummingbird
import Prometheus
import ServiceKit
import ServiceLifecycle

/// Builds and runs the HTTP gateway.
public enum Gateway {
    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "gateway",
        summary: "HTTP/JSON gateway: authenticates and routes each call to its owner as one MDP request",
        settings: GatewaySettings.all,
        probeHelp: "check that the gateway at HTTP_HOST:HTTP_PORT answers GET /healthz")

    /// The OpenAPI document served at `/openapi.yaml`.
    public static func openAPIDocument() throws -> [UInt8] {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
            throw ServiceError(.internal, "openapi.yaml is missing from the gateway's resources")
        }
        return Array(try Data(contentsOf: url))
    }

    /// Which of the gateway's HTTP listeners an application is.
    public enum Listener: Sendable {
        /// `HTTP_HOST:HTTP_PORT`, for the apps: the document's operations and nothing else.
        case apps
        /// `OPERATOR_HTTP_HOST:OPERATOR_HTTP_PORT`, for operators: the same, and the console.
        case operators
    }

    /// The application: routes, middleware and the server configuration. Tests build the same one.
    public static func buildApplication(
        settings: GatewaySettings, bus: BusClient, logger: Logger,
        listener: Listener = .apps, services: [any Service] = [],
        now: @escaping @Sendable () -> Int64 = { Monotonic.nanoseconds() },
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws -> some ApplicationProtocol {
        let router = Router(context: GatewayRequestContext.self)
        let document = try openAPIDocument()
        let console = try ConsoleRoute.files()  // a gateway without its console's files does not start
        router.add(middleware: RequestIDMiddleware(
                logger: logger, paths: LoggedPath(document: document), every: settings.accessLogEvery))
        router.add(middleware: RequestMetricsMiddleware())
        router.add(middleware: TusResumableMiddleware())
        router.add(middleware: ErrorMiddleware(logger: logger))
        router.add(middleware: SingleRepresentationMiddleware())
        router.add(middleware: CacheHeadersMiddleware())
        router.add(middleware: ConsoleHeadersMiddleware())
        let api = GatewayAPI(bus: bus, settings: settings, document: document)
        var routes = try RouteTable(registeredBy: api)
        let onePath = try DocumentRoute.all(in: document)
        for route in onePath { routes.add(route.spec.method, route.spec.path) }
        for route in BusRoute.all { routes.add(route.method, route.path) }
        for route in FixedRoute.all { routes.add(route.method, route.path) }
        for file in APIReference.all {
            routes.add(.get, file.path)
            routes.add(.head, file.path)
        }
        if listener == .operators {
            for file in console {
                routes.add(.get, file.path)
                routes.add(.head, file.path)
            }
        }
        router.add(middleware: MethodNotAllowedMiddleware(routes: routes))
        let limiter = RateLimiter(limits: settings.rateLimits, capacity: settings.rateLimitClients)
        let resolver = ClientAddressResolver(trustedProxies: settings.trustedProxies)
        router.add(middleware: RateLimitMiddleware(key: .address, limiter: limiter, resolver: resolver, now: now))
        let verifier = AccessTokenVerifier(bus: bus)
        router.add(middleware: AuthenticationMiddleware(verifier: verifier))
        router.add(middleware: RateLimitMiddleware(key: .account, limiter: limiter, resolver: resolver, now: now))
        for route in onePath { route.register(on: router, bus: bus, timeout: settings.requestTimeout) }
        for route in BusRoute.all { route.register(on: router, bus: bus, timeout: settings.requestTimeout) }
        for route in FixedRoute.all { route.register(on: router) }
        APIReference(folder: settings.apiDocsDirectory, logger: logger).register(on: router)
        if listener == .operators { try ConsoleRoute.register(on: router) }
        // Compact JSON: the runtime's default pretty printing costs CPU and bytes on every
        // response and tells a phone nothing more. Keys stay sorted so that a body is the same
        // bytes every time (the answers to reset requests must not differ by account).
        // Their answers get a body of one buffer (see OneBufferBodyMiddleware).
        try api.registerHandlers(
            on: AccessCheckedTransport(
                router.group().add(middleware: OneBufferBodyMiddleware()), operations: try DocumentOperation.read(document)),
            configuration: .init(dateTranscoder: RFC3339DateTranscoder(), jsonEncodingOptions: [.sortedKeys]))
        let address: BindAddress =
            switch listener {
            case .apps: .hostname(settings.host, port: settings.port)
            case .operators: .hostname(settings.operatorHost, port: settings.operatorPort ?? 0)
            }
        var app = Application(
            router: router, server: try Self.server(settings.tls),
            configuration: .init(
                address: address, serverName: "backplane",
                backlog: settings.backlog),
            eventLoopGroupProvider: .shared(eventLoopGroup), logger: logger)
        app.addServices(TokenKeyPrefetch(verifier: verifier))
        for service in services { app.addServices(service) }
        return app
    }

    /// HTTP/1.1, over TLS (1.2 or later) when a certificate and key are given.
    static func server(_ tls: (certificateFile: String, keyFile: String)?) throws -> HTTPServerBuilder {
        guard let tls else { return .http1() }
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(tls.certificateFile)
            key = try NIOSSLPrivateKey(file: tls.keyFile, format: .pem)
        } catch {
            throw ProcessEnvironment.InvalidSetting(
                name: "TLS_CERT_FILE/TLS_KEY_FILE", value: "\(tls.certificateFile), \(tls.keyFile)",
                expected: "readable PEM files: a certificate chain and its private key (\(type(of: error)))")
        }
        guard !chain.isEmpty else {
            throw ProcessEnvironment.InvalidSetting(
                name: "TLS_CERT_FILE", value: tls.certificateFile, expected: "a PEM file with at least one certificate")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return try .tls(.http1(), tlsConfiguration: configuration)
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
        // The bus client speaks ZMTP on the HTTP server's own event loops (one broker connection
        // each): no threads of its own, two thread hand-offs per call instead of four.
        let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: settings.eventLoops)
        let client = MajordomoClient(settings.brokerEndpoint, eventLoopGroup: eventLoops, logger: logger)
        let bus = BusClient(client: client, defaultTimeout: settings.requestTimeout)
        var services: [any Service] = [client]
        if let adminPort = settings.adminPort {
            // This gateway's own port for probes and scrapes: ready while its broker answers MMI.
            let timeout = settings.readinessTimeout
            services.append(
                AdminEndpoint(host: settings.adminHost, port: adminPort, registry: registry, logger: logger) {
                    do {
                        _ = try await bus.isServed("broker", timeout: timeout)
                        return ["broker": "ok"]
                    } catch {
                        return ["broker": (error as? ServiceError)?.message ?? "\(error)"]
                    }
                })
        }
        if settings.operatorPort != nil {
            services.append(
                try buildApplication(
                    settings: settings, bus: bus, logger: logger, listener: .operators,
                    eventLoopGroup: eventLoops))
        }
        let app = try buildApplication(
            settings: settings, bus: bus, logger: logger, services: services,
            eventLoopGroup: eventLoops)
        let scheme = settings.tls == nil ? "http" : "https"
        logger.info(
            "gateway listening",
            metadata: [
                "url": "\(scheme)://\(settings.host):\(settings.port)",
                "console": "\(settings.operatorPort.map { "\(scheme)://\(settings.operatorHost):\($0)/console" } ?? "off")",
                "broker": "\(settings.brokerURL)", "eventLoops": "\(settings.eventLoops)",
                "rateLimits":
                    "\(RouteClass.allCases.map { "\($0.rawValue)=\(settings.rateLimits[$0].map(String.init(describing:)) ?? "off")" }.joined(separator: " "))",
                "trustedProxies": "\(settings.trustedProxies.map(\.description).joined(separator: ","))",
            ])
        try await app.runService()
        try await eventLoops.shutdownGracefully()
    }

    /// `--probe`: `GET /healthz` answers 200.
    public static func probe(_ environment: ProcessEnvironment, logger: Logger) async throws {
        let settings = try GatewaySettings(environment)
        if let adminPort = settings.adminPort {
            print(try AdminEndpoint.probe(port: adminPort, name: "gateway"))
            return
        }
        let host = settings.host == "0.0.0.0" ? "127.0.0.1" : settings.host
        let status =
            settings.tls == nil
            ? try HTTPProbe.status(host: host, port: settings.port, path: "/healthz")
            : try await TLSProbe.status(host: host, port: settings.port, path: "/healthz")
        guard status == 200 else { throw ServiceError(.unavailable, "GET /healthz answered \(status)") }
        print("gateway ok at \(settings.tls == nil ? "http" : "https")://\(host):\(settings.port)")
    }
}
