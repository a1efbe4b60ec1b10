import Contract
import Foundation
import Hummingbird
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// A process's own HTTP port for operators and orchestrators (`ADMIN_HTTP_PORT`), never the
/// public API:
///
/// - `GET /healthz`: 200 while the process runs (liveness);
/// - `GET /readyz`: 200 when every readiness check passes, else 503, with each check's answer
///   as JSON (`{"status": "ok"|"unready", "checks": {"database": "ok", ...}}`);
/// - `GET /metrics`: the process's Prometheus registry, with its CPU time, resident memory and
///   open descriptors.
///
/// A Kubernetes probe or a compose health check asks this process, not any replica the broker
/// picks, and a broker outage does not fail every worker's liveness at once.
public struct AdminEndpoint: Service {
    /// Named checks; each answers "ok" or what is wrong.
    public typealias Readiness = @Sendable () async -> [String: String]

    let host: String
    let port: Int
    let registry: PrometheusCollectorRegistry
    let readiness: Readiness
    /// Run before each `/metrics` answer, to set gauges read on demand (a worker's backlog).
    let beforeScrape: @Sendable () async -> Void
    let logger: Logger

    public init(
        host: String, port: Int, registry: PrometheusCollectorRegistry, logger: Logger,
        beforeScrape: @escaping @Sendable () async -> Void = {},
        readiness: @escaping Readiness
    ) {
        self.host = host
        self.port = port
        self.registry = registry
        self.readiness = readiness
        self.beforeScrape = beforeScrape
        self.logger = logger
    }

    /// `ADMIN_HTTP_PORT` as a port, or nil when it is empty.
    public static func configuredPort(_ environment: ProcessEnvironment) throws -> Int? {
        guard let text = environment.string(.adminHTTPPort), !text.isEmpty else { return nil }
        return try environment.int(.adminHTTPPort, in: 1...65_535)
    }

    /// `--probe` on the admin port: its `/readyz` answers 200 (else an `unavailable` error with
    /// the checks), and the line to print.
    public static func probe(port: Int, name: String) throws -> String {
        let (status, body) = try AdminProbe.get(port: port, path: "/readyz")
        guard status == 200 else { throw ServiceError(.unavailable, "\(name) is not ready: \(body)") }
        return "\(name) ok (admin port \(port))"
    }

    /// The answer to `/readyz` for these check results.
    static func readyz(_ checks: [String: String]) -> (ready: Bool, json: String) {
        let ready = !checks.isEmpty && checks.values.allSatisfy { $0 == "ok" }
        let body = (try? JSONEncoder.sorted.encode(Report(status: ready ? "ok" : "unready", checks: checks)))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return (ready, body)
    }

    struct Report: Encodable {
        let status: String
        let checks: [String: String]
    }

    public func run() async throws {
        let router = Router()
        let (registry, readiness, beforeScrape) = (self.registry, self.readiness, self.beforeScrape)
        router.get("/healthz") { _, _ -> Response in
            Self.text(.ok, "ok\n", type: "text/plain; charset=utf-8")
        }
        router.get("/readyz") { _, _ -> Response in
            let (ready, json) = Self.readyz(await readiness())
            return Self.text(ready ? .ok : .serviceUnavailable, json, type: "application/json")
        }
        router.get("/metrics") { _, _ -> Response in
            await beforeScrape()
            ProcessMetrics.update(registry)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)
        let app = Application(
            router: router, configuration: .init(address: .hostname(host, port: port)), logger: quiet)
        logger.info("admin port listening", metadata: ["url": "http://\(host):\(port)"])
        try await app.run()
    }

    private static func text(_ status: HTTPResponse.Status, _ body: String, type: String) -> Response {
        Response(
            status: status, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}

extension JSONEncoder {
    /// Keys in order, so that the same checks read the same.
    fileprivate static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
