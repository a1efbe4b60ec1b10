import Contract
import Foundation
import GatewayService
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Majordomo
import Prometheus
import ServiceKit
import Testing
import TestSupport
import ZeroMQ

/// The gateway's public endpoints, through the same application the executable runs, against a
/// real broker and real workers on loopback.
@Suite("Gateway")
struct GatewayTests {
    static let logger: Logger = {
        var logger = Logger(label: "gateway-test")
        logger.logLevel = .critical
        return logger
    }()

    /// Builds the gateway application pointed at `broker`, requiring `services` for readiness.
    func app(
        broker: String, services: String = "alpha", readinessMs: Int = 500, listener: Gateway.Listener = .apps
    ) throws -> some ApplicationProtocol {
        let settings = try GatewaySettings(
            ProcessEnvironment([
                "BROKER_URL": broker, "READINESS_SERVICES": services, "READINESS_TIMEOUT_MS": "\(readinessMs)",
                "HTTP_PORT": "0",
            ]))
        // The client the gateway runs in production.
        let client = try #require(MajordomoClient(endpoint: broker, logger: Self.logger))
        return try Gateway.buildApplication(
            settings: settings, bus: BusClient(client: client), logger: Self.logger, listener: listener,
            services: [client])
    }

    /// A broker on a free loopback port with fast heartbeats, not yet running.
    static func broker() throws -> Broker {
        try InProcessBus.broker(requestTimeoutMs: 2000, logger: logger)
    }

    /// Runs a broker with one healthy `alpha` worker for the duration of `body`.
    func withSystem(_ body: @Sendable (String) async throws -> Void) async throws {
        var router = OperationRouter(service: ServiceName("alpha"), logger: Self.logger)
        router.register(Health.self) { _, _ in
            HealthReport(service: "alpha", status: "ok", instance: "test", uptimeSeconds: 1, checks: ["database": "ok"])
        }
        try await Self.withWorker(router, body)
    }

    /// Runs a broker and one worker answering with `router` for the duration of `body`, which
    /// gets the broker's endpoint.
    static func withWorker(_ router: OperationRouter, _ body: @Sendable (String) async throws -> Void) async throws {
        try await InProcessBus.with(router, concurrency: 2, requestTimeoutMs: 2000, logger: logger) { endpoint, _ in
            try await body(endpoint)
        }
    }

    func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    @Test("GET /healthz is 200 even with no broker, with a request id on the response")
    func healthz() async throws {
        try await app(broker: "tcp://127.0.0.1:1").test(.router) { client in
            let response = try await client.execute(uri: "/healthz", method: .get)
            #expect(response.status == .ok)
            #expect(try json(response)["status"] as? String == "ok")
            #expect(response.headers[HTTPField.Name("X-Request-Id")!]?.isEmpty == false)
        }
    }

    @Test("a client's own X-Request-Id is echoed; a hostile one is replaced")
    func requestIds() async throws {
        try await app(broker: "tcp://127.0.0.1:1").test(.router) { client in
            let header = HTTPField.Name("X-Request-Id")!
            let mine = try await client.execute(uri: "/healthz", method: .get, headers: [header: "abc-123"])
            #expect(mine.headers[header] == "abc-123")
            let hostile = try await client.execute(uri: "/healthz", method: .get, headers: [header: "bad id\"<script>"])
            #expect(hostile.headers[header] != "bad id\"<script>")
        }
    }

    @Test("GET /readyz is 503 naming what is missing when the broker is down")
    func notReady() async throws {
        try await app(broker: "tcp://127.0.0.1:1", readinessMs: 300).test(.router) { client in
            let response = try await client.execute(uri: "/readyz", method: .get)
            #expect(response.status == .serviceUnavailable)
            let body = try json(response)
            #expect(body["status"] as? String == "not_ready")
            let checks = try #require(body["checks"] as? [[String: Any]])
            #expect(checks.map { $0["name"] as? String } == ["broker", "alpha"])
            #expect(checks.allSatisfy { $0["ok"] as? Bool == false })
        }
    }

    @Test("GET /readyz is 200 when the broker and every required service answer, 503 when one does not")
    func ready() async throws {
        try await withSystem { endpoint in
            try await app(broker: endpoint).test(.router) { client in
                var response = try await client.execute(uri: "/readyz", method: .get)
                for _ in 0..<50 where response.status != .ok {
                    try await Task.sleep(for: .milliseconds(100))
                    response = try await client.execute(uri: "/readyz", method: .get)
                }
                #expect(response.status == .ok)
                #expect(try json(response)["status"] as? String == "ready")
            }
            try await app(broker: endpoint, services: "alpha,beta").test(.router) { client in
                let response = try await client.execute(uri: "/readyz", method: .get)
                #expect(response.status == .serviceUnavailable)
                let checks = try #require(try json(response)["checks"] as? [[String: Any]])
                #expect(checks.first { $0["name"] as? String == "beta" }?["ok"] as? Bool == false)
            }
        }
    }

    @Test("a bearer token while auth cannot give the token keys is a 503 to retry, not a 401")
    func tokenKeysUnavailable() async throws {
        try await withSystem { endpoint in
            try await app(broker: endpoint).test(.router) { client in
                let response = try await client.execute(
                    uri: "/v1/me", method: .get, headers: [.authorization: "Bearer aaa.bbb.ccc"])
                #expect(response.status == .serviceUnavailable)
                let body = try json(response)
                #expect(body["code"] as? String == "unavailable")
                #expect((body["message"] as? String)?.contains("token keys") == true)
            }
        }
    }

    /// Paths an operator surface might be reached by, in the spellings a router or a proxy might
    /// read as the same path.
    static let operatorSpellings = [
        "/metrics", "/metrics/", "//metrics", "/METRICS", "/Metrics", "/./metrics", "/v1/../metrics", "/metrics%2F",
        "/metrics?format=text", "/%6Detrics", "/console", "/console/", "/console/console.js", "/console/console.css",
        "//console", "/CONSOLE", "/./console/console.js",
    ]

    @Test("the apps' listener answers 404 for /metrics and the console, however the path is spelt")
    func operatorSurfacesOffTheAppsListener() async throws {
        try await app(broker: "tcp://127.0.0.1:1").test(.router) { client in
            for path in Self.operatorSpellings {
                for method in [HTTPRequest.Method.get, .head] {
                    let response = try await client.execute(uri: path, method: method)
                    #expect(response.status == .notFound, "\(method) \(path): \(response.status)")
                    #expect(!String(buffer: response.body).contains("# TYPE"), "\(path)")
                }
            }
        }
        // The operator listener serves the console and still no /metrics (that is the admin port's).
        try await app(broker: "tcp://127.0.0.1:1", listener: .operators).test(.router) { client in
            let console = try await client.execute(uri: "/console", method: .get)
            #expect(console.status == .ok)
            for path in ["/metrics", "/metrics/", "//metrics"] {
                let response = try await client.execute(uri: path, method: .get)
                #expect(response.status == .notFound, "\(path)")
            }
        }
    }

    @Test("GET /openapi.yaml serves the document, which describes every public path")
    func openAPIDocument() async throws {
        try await app(broker: "tcp://127.0.0.1:1").test(.router) { client in
            let response = try await client.execute(uri: "/openapi.yaml", method: .get)
            #expect(response.status == .ok)
            let text = String(buffer: response.body)
            #expect(text.hasPrefix("openapi: 3.1.0"))
            for path in [
                "/healthz:", "/readyz:", "/openapi.yaml:", "/v1/auth/register:", "/v1/auth/login:",
                "/v1/auth/refresh:",
                "/v1/auth/logout:", "/.well-known/jwks.json:", "/v1/me:",
            ] {
                #expect(text.contains("  \(path)"))
            }
            for operatorPath in ["/metrics:", "/console:", "/console/console.js:"] {
                #expect(!text.contains("\n  \(operatorPath)"), "the apps' document leaves out \(operatorPath)")
            }
        }
    }

    @Test("an unknown path is a 404 with the JSON error body and the request id")
    func notFound() async throws {
        try await app(broker: "tcp://127.0.0.1:1").test(.router) { client in
            let response = try await client.execute(uri: "/v1/nothing-here", method: .get)
            #expect(response.status == .notFound)
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            let body = try json(response)
            #expect(body["code"] as? String == "not_found")
            #expect(body["requestId"] as? String == response.headers[HTTPField.Name("X-Request-Id")!])
        }
    }

    @Test("a known path with a method it does not have is a 405 whose Allow lists the path's methods")
    func methodNotAllowed() async throws {
        try await app(broker: "tcp://127.0.0.1:1").test(.router) { client in
            let cases: [(String, HTTPRequest.Method, String)] = [
                ("/healthz", .post, "GET"),
                ("/v1/me", .put, "GET, PATCH, DELETE"),
                ("/v1/me/devices/8c6f2f4e-59a4-4a51-8f5e-2f1f2c1d0e9a", .get, "DELETE"),
                ("/v1/print-jobs/batch.pdf", .get, "POST"),
                ("/v1/orders/abc/cancel", .options, "POST"),
            ]
            for (path, method, allow) in cases {
                let response = try await client.execute(uri: path, method: method)
                #expect(response.status == .methodNotAllowed, "\(method) \(path)")
                #expect(response.headers[.allow] == allow, "\(method) \(path)")
                let body = try json(response)
                #expect(body["code"] as? String == "method_not_allowed")
                #expect(body["requestId"] as? String == response.headers[HTTPField.Name("X-Request-Id")!])
            }
            // Unknown paths stay 404, whatever the method.
            let unknown = try await client.execute(uri: "/v1/me/nothing", method: .post)
            #expect(unknown.status == .notFound)
            #expect(unknown.headers[.allow] == nil)
        }
    }
}
