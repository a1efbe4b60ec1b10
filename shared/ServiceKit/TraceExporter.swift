import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Synchronization
import Telemetry
import Tracing

/// Sends ended spans to an OTLP/HTTP collector as JSON (`POST <endpoint>/v1/traces`), in
/// batches, off the request path: spans wait in a bounded ``SpanBuffer`` (full: dropped and
/// counted), and one task here sends a batch when one is full or every `interval`.
///
/// Our own rather than swift-otel's: that one brings gRPC and protobuf, several minutes of every
/// clean build here; OTLP/HTTP with the JSON encoding needs only the HTTP client the services
/// already build.
public final class TraceExporter: Sendable {
    /// Where spans go: `<endpoint>/v1/traces`.
    public let url: String
    /// `service.name` of the spans.
    public let service: String
    /// The spans waiting.
    public let buffer: SpanBuffer
    private let interval: Duration
    private let logger: Logger
    private let client: HTTPClient
    private let done: AsyncStream<Void>.Continuation
    private let finished: AsyncStream<Void>
    private let droppedReported = Atomic<Int>(0)

    /// An exporter to `endpoint` (the collector's base URL).
    public init(endpoint: String, service: String, buffer: SpanBuffer, interval: Duration, logger: Logger) {
        var base = endpoint
        while base.hasSuffix("/") { base.removeLast() }
        self.url = base.hasSuffix("/v1/traces") ? base : base + "/v1/traces"
        self.service = service
        self.buffer = buffer
        self.interval = interval
        self.logger = logger
        self.client = HTTPClient(eventLoopGroupProvider: .singleton)
        (finished, done) = AsyncStream.makeStream(of: Void.self)
    }

    /// Sends until ``shutdown()``; then sends what is left (for at most 2 s).
    public func run() async {
        let wakeUps = buffer.wakeUps
        let (interval, buffer) = (interval, self.buffer)
        await withTaskGroup(of: Void.self) { group in
            // A timer tick is a wake-up too: `requestFlush` yields into the same stream.
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    buffer.requestFlush()
                }
            }
            for await _ in wakeUps {
                await sendAll()
            }
            group.cancelAll()
        }
        await sendAll(until: .now + .seconds(2))
        try? await client.shutdown()
        done.finish()
    }

    /// Stops after sending what waits; returns when done.
    public func shutdown() async {
        buffer.finish()
        for await _ in finished {}
    }

    /// Sends every waiting span, batch by batch.
    private func sendAll(until deadline: ContinuousClock.Instant? = nil) async {
        while buffer.count > 0 {
            if let deadline, ContinuousClock.now > deadline { return }
            let batch = buffer.take(upTo: buffer.batchSize)
            await send(batch, timeout: deadline == nil ? .seconds(10) : .seconds(1))
        }
    }

    private func send(_ spans: [FinishedSpan], timeout: TimeAmount) async {
        guard !spans.isEmpty else { return }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(
            ByteBuffer(
                bytes: OTLPJSON.exportRequest(
                    spans, service: service, instance: WorkerHost.instance, version: BuildInfo.version)))
        do {
            let response = try await client.execute(request, timeout: timeout)
            _ = try? await response.body.collect(upTo: 64 * 1024)
            if response.status.code >= 300 {
                logger.warning(
                    "trace export refused",
                    metadata: ["status": "\(response.status.code)", "spans": "\(spans.count)"])
            }
        } catch {
            logger.warning(
                "trace export failed",
                metadata: ["error": "\(SafeErrorDescription.of(error))", "spans": "\(spans.count)"])
        }
        let dropped = buffer.dropped
        if dropped > droppedReported.exchange(dropped, ordering: .relaxed) {
            logger.notice("spans dropped: the export buffer was full", metadata: ["total": "\(dropped)"])
        }
    }
}

/// Turns tracing on from the environment (see ``Setting/tracing``), or leaves it off.
public enum TracingSetup {
    /// With `OTEL_EXPORTER_OTLP_ENDPOINT` set: installs the tracer and answers its exporter (to
    /// run for the life of the process); otherwise nil and tracing stays off.
    public static func bootstrap(process: String, environment: ProcessEnvironment, logger: Logger) throws
        -> TraceExporter?
    {
        guard let endpoint = environment.string(.otlpEndpoint), !endpoint.isEmpty else { return nil }
        guard let parsed = URL(string: endpoint), let scheme = parsed.scheme, ["http", "https"].contains(scheme),
            let host = parsed.host
        else {
            throw ProcessEnvironment.InvalidSetting(
                name: Setting.otlpEndpoint.name, value: "(not shown)",
                expected: "an http:// or https:// URL, e.g. http://otel-collector:4318")
        }
        // What the log may show of it: no user or password a URL might carry.
        let shown = "\(scheme)://\(host)\(parsed.port.map { ":\($0)" } ?? "")"
        let samplerName = environment.string(.otelSampler) ?? ""
        guard let sampler = Sampler(name: samplerName, argument: environment.string(.otelSamplerArgument)) else {
            throw ProcessEnvironment.InvalidSetting(
                name: Setting.otelSampler.name, value: samplerName,
                expected: "one of \(Sampler.names.joined(separator: ", ")), with OTEL_TRACES_SAMPLER_ARG a number from 0 to 1")
        }
        let delay = try environment.int(.otelScheduleDelay, in: 10...600_000)
        let capacity = try environment.int(.otelMaxQueue, in: 1...1_000_000)
        let name = environment.string(.otelServiceName).flatMap { $0.isEmpty ? nil : $0 } ?? process
        let buffer = SpanBuffer(capacity: capacity, batchSize: min(512, capacity))
        Traces.install(OTLPTracer(buffer: buffer, sampler: sampler))
        logger.info(
            "tracing on", metadata: ["endpoint": "\(shown)", "serviceName": "\(name)", "sampler": "\(samplerName)"])
        return TraceExporter(
            endpoint: endpoint, service: name, buffer: buffer, interval: .milliseconds(delay), logger: logger)
    }
}
