import Contract
import Foundation
import Majordomo
import NIOCore
import ServiceKit

/// The gateway's settings, read from the environment.
public struct GatewaySettings: Sendable {
    static let host = Setting("HTTP_HOST", default: "127.0.0.1", "address to listen on (0.0.0.0 in containers)")
    static let port = Setting("HTTP_PORT", default: "8080", "HTTP port")
    static let readinessServices = Setting(
        "READINESS_SERVICES", default: "auth,orders,printing,routing,notify,hydration,civic,social",
        "services /readyz requires to answer their health operation (comma-separated)")
    static let eventLoops = Setting(
        "HTTP_EVENT_LOOPS", default: "auto",
        "threads that read and write the gateway's sockets, HTTP and broker (handlers run on Swift's task pool, a thread per core); auto: half the cores, at least 1")
    static let backlog = Setting(
        "HTTP_BACKLOG", default: "4096",
        "connections the kernel holds for the gateway before it accepts them (listen backlog; Linux caps it at net.core.somaxconn). A connection that finds the queue full is dropped and its client tries again only after a second")
    static let operatorPort = Setting(
        "OPERATOR_HTTP_PORT", default: "",
        "port of the operator listener: the console (/console) beside the whole API it calls; never publish it where the apps' port is published (empty: no console)")
    static let operatorHost = Setting(
        "OPERATOR_HTTP_HOST", default: "127.0.0.1", "address the operator listener listens on (0.0.0.0 in a container)")
    static let readinessTimeout = Setting(
        "READINESS_TIMEOUT_MS", default: "2000", "how long /readyz waits for each check, in ms")

    static let tlsCertificateFile = Setting(
        "TLS_CERT_FILE", default: nil,
        "PEM certificate chain; with TLS_KEY_FILE the gateway serves HTTPS (TLS 1.2+) instead of HTTP")
    static let tlsKeyFile = Setting("TLS_KEY_FILE", default: nil, "PEM private key of TLS_CERT_FILE", secret: true)
    static let trustedProxies = Setting(
        "TRUSTED_PROXIES", default: "",
        "comma-separated addresses or CIDR blocks of proxies whose X-Forwarded-For is believed (empty: none)")
    static let accessLogEvery = Setting(
        "ACCESS_LOG_EVERY", default: "1",
        "write the access log's `http` line for one request in N (1: every request; 0: none); answers of 500 and above are always logged")
    static let apiDocsDirectory = Setting(
        "API_DOCS_DIR", default: "",
        "folder holding Swagger UI 5's swagger-ui-bundle.js and swagger-ui.css (the PyPI package swagger-ui-bundle-v2), which /docs renders /openapi.yaml with (empty: /docs says the reference is not installed)")
    static let rateLimitClients = Setting(
        "RATE_LIMIT_CLIENTS", default: "200000",
        "clients (address or account, per route class) the rate limits remember at most")
    /// The limit setting of each route class.
    static let rateLimitSettings: [RouteClass: Setting] = [
        .login: Setting(
            "RATE_LIMIT_LOGIN", default: "30/min,burst=10",
            "logins and password changes per client address and per account (COUNT/s|min|h[,burst=N], or off)"),
        .register: Setting("RATE_LIMIT_REGISTER", default: "20/h,burst=10", "registrations per client address"),
        .recovery: Setting(
            "RATE_LIMIT_RECOVERY", default: "10/h,burst=5",
            "password resets and username reminders per client address"),
        .search: Setting(
            "RATE_LIMIT_SEARCH", default: "120/min,burst=60",
            "venue searches, route plans, locates, postcard previews, people and catalogue searches per client address and per account"),
        .write: Setting(
            "RATE_LIMIT_WRITE", default: "600/min,burst=120",
            "other POST/PUT/PATCH/DELETE calls per client address and per account"),
        .read: Setting(
            "RATE_LIMIT_READ", default: "1200/min,burst=240", "other GET calls per client address and per account"),
    ]

    /// Every setting, for `--help`.
    public static let all: [Setting] =
        [
            .logLevel, .logFormat, host, port, .brokerURL, .requestTimeout, readinessServices, readinessTimeout,
            tlsCertificateFile, tlsKeyFile, trustedProxies, accessLogEvery, rateLimitClients, .adminHTTPPort,
            .adminHTTPHost, operatorPort, operatorHost, eventLoops, backlog, apiDocsDirectory,
        ] + RouteClass.allCases.compactMap { rateLimitSettings[$0] } + Setting.tracing

    /// Where to listen.
    public var host: String
    /// The port to listen on (0: any free port).
    public var port: Int
    /// The broker's MDP endpoint, parsed: what the bus client connects to.
    public var brokerEndpoint: MajordomoClient.Endpoint
    /// The same as text (`tcp://HOST:PORT`), for logs.
    public var brokerURL: String { brokerEndpoint.description }
    /// How many event loops serve HTTP and the broker connections (one each).
    public var eventLoops: Int
    /// The listen backlog of the HTTP port.
    public var backlog: Int
    /// Deadline for a call to a service.
    public var requestTimeout: Duration
    /// The admin port (`/healthz`, `/readyz`: this gateway's broker connection, `/metrics`), or nil.
    public var adminPort: Int?
    /// Where the admin port listens.
    public var adminHost: String
    /// The operator listener's port (the console and the API), or nil.
    public var operatorPort: Int?
    /// Where the operator listener listens.
    public var operatorHost: String
    /// What `/readyz` checks.
    public var readinessServices: [ServiceName]
    /// Deadline for each readiness check.
    public var readinessTimeout: Duration

    /// The rate limit of each route class (a class without one is not limited).
    public var rateLimits: [RouteClass: RateLimit]
    /// Proxies whose `X-Forwarded-For` is believed.
    public var trustedProxies: [IPBlock]
    /// Clients the rate limits remember at most.
    public var rateLimitClients: Int
    /// One `http` log line per this many requests answered below 500 (0: none).
    public var accessLogEvery: Int
    /// The folder of Swagger UI's files for `/docs` (empty: not installed).
    public var apiDocsDirectory: String
    /// The certificate chain and key files to serve HTTPS with; nil: plain HTTP.
    public var tls: (certificateFile: String, keyFile: String)?

    /// `HTTP_EVENT_LOOPS=auto`: half the cores, at least one. The handlers run on Swift's task
    /// pool, which has a thread per core; a loop per core on top of that made a small machine
    /// switch threads more than it served (see docs/benchmarks.md, 2026-11-29).
    static func automaticEventLoops(cores: Int) -> Int { max(1, cores / 2) }

    /// Reads the settings.
    public init(_ environment: ProcessEnvironment) throws {
        host = try environment.required(Self.host)
        port = try environment.int(Self.port, in: 0...65535)
        brokerEndpoint = try environment.brokerEndpoint()
        let loops = try environment.required(Self.eventLoops)
        if loops == "auto" {
            eventLoops = Self.automaticEventLoops(cores: System.coreCount)
        } else if let count = Int(loops), (1...256).contains(count) {
            eventLoops = count
        } else {
            throw ProcessEnvironment.InvalidSetting(
                name: Self.eventLoops.name, value: loops, expected: "auto, or a number of loops from 1 to 256")
        }
        backlog = try environment.int(Self.backlog, in: 1...65_535)
        adminPort = try AdminEndpoint.configuredPort(environment)
        adminHost = try environment.required(.adminHTTPHost)
        let operatorText = environment.string(Self.operatorPort) ?? ""
        operatorPort = operatorText.isEmpty ? nil : try environment.int(Self.operatorPort, in: 0...65_535)
        operatorHost = try environment.required(Self.operatorHost)
        if let operatorPort, operatorPort != 0, operatorPort == port || operatorPort == adminPort {
            throw ProcessEnvironment.InvalidSetting(
                name: Self.operatorPort.name, value: operatorText, expected: "a port other than HTTP_PORT and ADMIN_HTTP_PORT")
        }
        requestTimeout = .milliseconds(try environment.int(.requestTimeout, in: 1...3_600_000))
        readinessServices = try environment.required(Self.readinessServices).split(separator: ",")
            .map { ServiceName(String($0).trimmingCharacters(in: .whitespaces)) }.filter { !$0.rawValue.isEmpty }
        readinessTimeout = .milliseconds(try environment.int(Self.readinessTimeout, in: 1...60_000))
        rateLimits = [:]
        for (routeClass, setting) in Self.rateLimitSettings {
            let raw = try environment.required(setting)
            do {
                rateLimits[routeClass] = try RateLimit.parse(raw)
            } catch {
                throw ProcessEnvironment.InvalidSetting(
                    name: setting.name, value: raw, expected: "COUNT/s|min|h[,burst=N] (e.g. 30/min,burst=10) or off")
            }
        }
        let proxies = environment.string(Self.trustedProxies) ?? ""
        guard let blocks = ClientAddressResolver.parseBlocks(proxies) else {
            throw ProcessEnvironment.InvalidSetting(
                name: Self.trustedProxies.name, value: proxies,
                expected: "comma-separated IPv4/IPv6 addresses or CIDR blocks, e.g. 10.0.0.0/8,::1")
        }
        trustedProxies = blocks
        rateLimitClients = try environment.int(Self.rateLimitClients, in: 1_000...100_000_000)
        accessLogEvery = try environment.int(Self.accessLogEvery, in: 0...1_000_000)
        apiDocsDirectory = environment.string(Self.apiDocsDirectory) ?? ""
        switch (environment.string(Self.tlsCertificateFile), environment.string(Self.tlsKeyFile)) {
        case (nil, nil): tls = nil
        case (let certificate?, let key?): tls = (certificate, key)
        case (nil, _?), (_?, nil):
            throw ProcessEnvironment.InvalidSetting(
                name: "TLS_CERT_FILE/TLS_KEY_FILE", value: "only one of them set", expected: "both set, or neither")
        }
    }
}
