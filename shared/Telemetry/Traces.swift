import Instrumentation
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// The process's tracing: off (the default) unless ``install(_:)`` was called at start-up, which
/// happens only when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. The tracer, its sampler, batching and
/// OTLP/HTTP exporter are swift-otel's (``makeBackend(_:logger:)``); this type is the one place
/// the rest of the code asks for a span.
///
/// Every instrumented place (gateway request, bus call, handler, SQL transaction, event consumer,
/// job) asks ``tracer`` first and, when it is nil, runs its work as before: no span, no context,
/// no allocation. The trace context the caller sent is still passed on as it came
/// (`RequestMetadata.traceparent`), so a process with tracing off does not cut a trace in two
/// between processes that have it on.
public enum Traces {
    // Written once by `install`, at start-up before any request task exists (as swift-log's and
    // swift-metrics' bootstraps are), and only read afterwards.
    nonisolated(unsafe) private static var installed: (any Tracer)?

    /// The tracer, when tracing is on.
    @inline(__always) public static var tracer: (any Tracer)? { installed }

    /// Turns tracing on for this process (once, at start-up); also makes it
    /// swift-distributed-tracing's `InstrumentationSystem` tracer.
    public static func install(_ tracer: any Tracer) {
        precondition(installed == nil, "tracing installed twice")
        installed = tracer
        InstrumentationSystem.bootstrap(tracer)
    }

    /// Starts a span under the task's current context (or `parent`, a `traceparent` received
    /// from elsewhere, when given and valid); nil when tracing is off.
    public static func startSpan(
        _ name: @autoclosure () -> String, kind: SpanKind = .internal, parent: String? = nil, state: String? = nil
    ) -> (any Span)? {
        guard let tracer = installed else { return nil }
        var context = InstrumentationContext.current ?? .topLevel
        if let parent { adopt(parent, state: state, into: &context, tracer: tracer) }
        context[TracerKey.self] = tracer
        return tracer.startSpan(name(), context: context, ofKind: kind)
    }

    /// Starts a span that continues `parent`, a `traceparent` stored with work queued earlier (a
    /// job), whatever the task's current context; without a valid `parent` the span starts a
    /// new trace. Nil when tracing is off (`tracer`, the installed one unless a test gives its own,
    /// is nil).
    public static func startSpan(
        _ name: @autoclosure () -> String, kind: SpanKind = .internal, continuing parent: String?,
        tracer: (any Tracer)? = Traces.tracer
    ) -> (any Span)? {
        guard let tracer else { return nil }
        var context = InstrumentationContext.topLevel
        if let parent { adopt(parent, state: nil, into: &context, tracer: tracer) }
        context[TracerKey.self] = tracer
        return tracer.startSpan(name(), context: context, ofKind: kind)
    }

    /// Makes a received `traceparent` (valid ones only: it is a caller's text) the remote parent
    /// in `context`.
    private static func adopt(_ parent: String, state: String?, into context: inout InstrumentationContext, tracer: any Tracer) {
        guard TraceParent.isValid(parent) else { return }
        var carrier = ["traceparent": parent]
        if let state = TraceState.sanitized(state) { carrier["tracestate"] = state }
        tracer.extract(carrier, into: &context, using: HeaderCarrier())
    }

    /// Runs `body` inside a span (made current for the task while it runs), or, with tracing off,
    /// just runs it. An error thrown marks the span failed.
    public static func withSpan<T, E: Error>(
        _ name: @autoclosure () -> String, kind: SpanKind = .internal, parent: String? = nil,
        isolation: isolated (any Actor)? = #isolation,
        _ body: ((any Span)?) async throws(E) -> T
    ) async throws(E) -> T {
        guard let span = startSpan(name(), kind: kind, parent: parent) else { return try await body(nil) }
        return try await within(span, isolation: isolation, body)
    }

    /// Runs `body` with `span` as the task's current span, and ends it.
    public static func within<T, E: Error>(
        _ span: any Span, isolation: isolated (any Actor)? = #isolation,
        _ body: ((any Span)?) async throws(E) -> T
    ) async throws(E) -> T {
        defer { span.end() }
        let result: Result<T, E> = await InstrumentationContext.$current.withValue(span.context) {
            do throws(E) {
                return .success(try await body(span))
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = result { failed(span, by: error) }
        return try result.get()
    }

    /// Marks `span` failed by `error`, recording the error's type only: its text may hold what
    /// must not leave the service (see the README's redaction rules), so swift-distributed-tracing's
    /// `recordError`, which sends the text, is never called.
    public static func failed(_ span: any Span, by error: any Error) {
        span.addEvent(SpanEvent(name: "exception", attributes: ["exception.type": "\(type(of: error))"]))
        span.setStatus(SpanStatus(code: .error))
    }

    /// The `traceparent` a callee of `span` gets.
    public static func traceparent(of span: any Span) -> String? { traceparent(in: span.context) }

    /// The `traceparent` of the task's current span, when there is one.
    public static var currentTraceparent: String? {
        guard let context = InstrumentationContext.current else { return nil }
        return traceparent(in: context)
    }

    /// Whether the task runs inside a trace (a span of its own or a received parent).
    public static var inTrace: Bool { InstrumentationContext.current?.otelTraceID != nil }

    /// Written by the tracer that started the trace's spans here (a test's own, or the installed one).
    private static func traceparent(in context: InstrumentationContext) -> String? {
        guard let tracer = context[TracerKey.self], context.otelTraceID != nil else { return nil }
        var carrier: [String: String] = [:]
        tracer.inject(context, into: &carrier, using: HeaderCarrier())
        return carrier["traceparent"]
    }

    /// Log metadata from the task's current span (`traceId`, `spanId`, `traceFlags`): swift-log
    /// calls it for every line logged, so a line logged inside a span names its trace.
    public static let logMetadata: Logger.MetadataProvider = {
        var keys = OTel.Configuration.LoggingMetadataProviderConfiguration.default
        (keys.traceIDKey, keys.spanIDKey, keys.traceFlagsKey) = ("traceId", "spanId", "traceFlags")
        return OTel.makeLoggingMetadataProvider(configuration: keys)
    }()

    /// The sampler an `OTEL_TRACES_SAMPLER` name (with `OTEL_TRACES_SAMPLER_ARG`, a ratio from 0
    /// to 1 for the `*traceidratio` ones) stands for; nil for any other name or ratio.
    public static func sampler(named name: String, argument: String?) -> OTel.Configuration.TracesConfiguration.SamplerConfiguration? {
        let ratio = argument.map { Double($0) } ?? 1.0
        switch name {
        case "parentbased_always_on", "": return .parentBasedAlwaysOn
        case "parentbased_always_off": return .parentBasedAlwaysOff
        case "always_on": return .alwaysOn
        case "always_off": return .alwaysOff
        case "parentbased_traceidratio": return ratio.flatMap { .parentBasedTraceIDRatio(ratio: $0) }
        case "traceidratio": return ratio.flatMap { .traceIDRatio(ratio: $0) }
        default: return nil
        }
    }

    /// The names ``sampler(named:argument:)`` takes.
    public static let samplerNames = [
        "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio", "always_on", "always_off",
        "traceidratio",
    ]

    /// How a process exports its spans.
    public struct Export: Sendable {
        /// The collector's OTLP/HTTP base URL; spans go to `<base>/v1/traces` as protobuf.
        public var endpoint: String
        /// `service.name` of the spans.
        public var serviceName: String
        /// Other resource attributes (`service.version`, `service.instance.id`).
        public var resource: [String: String]
        /// Which new traces are recorded.
        public var sampler: OTel.Configuration.TracesConfiguration.SamplerConfiguration
        /// The exporter sends at least this often.
        public var scheduleDelay: Duration
        /// Ended spans held for the exporter; when full, new ones are dropped.
        public var maxQueueSize: Int

        /// An export configuration.
        public init(
            endpoint: String, serviceName: String, resource: [String: String] = [:],
            sampler: OTel.Configuration.TracesConfiguration.SamplerConfiguration = .parentBasedAlwaysOn,
            scheduleDelay: Duration = .seconds(5), maxQueueSize: Int = 2048
        ) {
            self.endpoint = endpoint
            self.serviceName = serviceName
            self.resource = resource
            self.sampler = sampler
            self.scheduleDelay = scheduleDelay
            self.maxQueueSize = maxQueueSize
        }
    }

    /// swift-otel's tracer for `export` (not installed) and the service that batches and sends its
    /// spans, which must run for as long as spans are made; its graceful shutdown sends what
    /// waits. The exporter's own troubles (a collector that refuses or cannot be reached) go to
    /// `logger` at warning level.
    public static func makeBackend(_ export: Export, logger: Logger) throws -> (tracer: any Tracer, service: any Service) {
        var configuration = OTel.Configuration.default
        configuration.serviceName = export.serviceName
        configuration.resourceAttributes = export.resource
        configuration.diagnosticLogger = .custom(logger)
        configuration.diagnosticLogLevel = .warning
        configuration.propagators = [.traceContext]
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.sampler = export.sampler
        configuration.traces.batchSpanProcessor.scheduleDelay = export.scheduleDelay
        configuration.traces.batchSpanProcessor.maxQueueSize = export.maxQueueSize
        configuration.traces.batchSpanProcessor.maxExportBatchSize = min(512, export.maxQueueSize)
        // A collector that does not answer delays a process's exit by at most this much.
        configuration.traces.batchSpanProcessor.exportTimeout = .seconds(3)
        configuration.traces.otlpExporter.timeout = .seconds(3)
        var base = export.endpoint
        while base.hasSuffix("/") { base.removeLast() }
        configuration.traces.otlpExporter.endpoint = base + "/v1/traces"
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        return (backend.factory, backend.service)
    }
}

/// The tracer that made a context's spans rides along in it, so that what asks for the
/// context's `traceparent` (a bus call, a job queued, an event appended) writes it with the same
/// propagator, also under a test's own tracer.
private enum TracerKey: InstrumentationContextKey {
    typealias Value = any Tracer
}

/// A `traceparent`/`tracestate` carrier for the propagator: a plain dictionary.
private struct HeaderCarrier: Extractor, Injector {
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
}
