import Hummingbird
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// `GET /metrics` of one notify replica, Prometheus text, on `METRICS_PORT`: what alerts watch,
/// such as ``Deliverer/configErrorsMetric``. Workers have no other HTTP surface.
public struct MetricsEndpoint: Service {
    /// The registry the process's counters are in.
    public let registry: PrometheusCollectorRegistry
    let host: String
    let port: Int
    let logger: Logger

    /// An endpoint for `registry` at `host`:`port`.
    public init(registry: PrometheusCollectorRegistry, host: String, port: Int, logger: Logger) {
        self.registry = registry
        self.host = host
        self.port = port
        self.logger = logger
    }

    public func run() async throws {
        let router = Router()
        router.get("/metrics") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname(host, port: port)), logger: logger)
        logger.info("metrics listening", metadata: ["url": "http://\(host):\(port)/metrics"])
        try await app.run()
    }
}
