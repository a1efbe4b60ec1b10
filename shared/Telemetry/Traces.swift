import Logging
import Tracing

/// The process's tracing: off (the default) unless ``install(_:)`` was called at start-up, which
/// happens only when `OTEL_EXPORTER_OTLP_ENDPOINT` is set.
///
/// Every instrumented place (gateway request, bus call, handler, SQL transaction, event consumer)
/// asks ``tracer`` first and, when it is nil, runs its work as before: no span, no context, no
/// allocation. The trace context the caller sent is still passed on as it came
/// (`RequestMetadata.traceparent`), so a process with tracing off does not cut a trace in two
/// between processes that have it on.
public enum Traces {
    // Written once by `install`, at start-up before any request task exists (as swift-log's and
    // swift-metrics' bootstraps are), and only read afterwards.
    nonisolated(unsafe) private static var installed: OTLPTracer?

    /// The tracer, when tracing is on.
    @inline(__always) public static var tracer: OTLPTracer? { installed }

    /// Turns tracing on for this process (once, at start-up); also makes it
    /// swift-distributed-tracing's `InstrumentationSystem` tracer.
    public static func install(_ tracer: OTLPTracer) {
        precondition(installed == nil, "tracing installed twice")
        installed = tracer
        InstrumentationSystem.bootstrap(tracer)
    }

    /// Starts a span under the task's current context (or `parent`, a `traceparent` received
    /// from elsewhere, when given and valid); nil when tracing is off.
    public static func startSpan(
        _ name: @autoclosure () -> String, kind: SpanKind = .internal, parent: String? = nil, state: String? = nil
    ) -> RecordingSpan? {
        guard let tracer = installed else { return nil }
        var context = InstrumentationContext.current ?? .topLevel
        if let parent, let remote = TraceParent(parent) {
            context.traceContext = TraceContext(parent: remote, state: TraceState.sanitized(state), isRemote: true)
        }
        return tracer.startSpan(name(), context: context, ofKind: kind)
    }

    /// Starts a span that continues `parent`, a `traceparent` stored with work queued earlier (a
    /// job), whatever the task's current context; without a valid `parent` the span starts a
    /// new trace. Nil when tracing is off (`tracer`, the installed one unless a test gives its own,
    /// is nil).
    public static func startSpan(
        _ name: @autoclosure () -> String, kind: SpanKind = .internal, continuing parent: String?,
        tracer: OTLPTracer? = Traces.tracer
    ) -> RecordingSpan? {
        guard let tracer else { return nil }
        var context = InstrumentationContext.topLevel
        if let parent, let stored = TraceParent(parent) {
            context.traceContext = TraceContext(parent: stored, isRemote: true)
        }
        return tracer.startSpan(name(), context: context, ofKind: kind)
    }

    /// Runs `body` inside a span (made current for the task while it runs), or, with tracing off,
    /// just runs it. An error thrown marks the span failed.
    public static func withSpan<T, E: Error>(
        _ name: @autoclosure () -> String, kind: SpanKind = .internal, parent: String? = nil,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (RecordingSpan?) async throws(E) -> T
    ) async throws(E) -> T {
        guard let span = startSpan(name(), kind: kind, parent: parent) else { return try await body(nil) }
        return try await within(span, isolation: isolation, body)
    }

    /// Runs `body` with `span` as the task's current span, and ends it.
    public static func within<T, E: Error>(
        _ span: RecordingSpan, isolation: isolated (any Actor)? = #isolation,
        _ body: (RecordingSpan?) async throws(E) -> T
    ) async throws(E) -> T {
        defer { span.end() }
        let result: Result<T, E> = await InstrumentationContext.$current.withValue(span.context) {
            do throws(E) {
                return .success(try await body(span))
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = result {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
        }
        return try result.get()
    }

    /// The `traceparent` of the task's current span, when tracing is on and there is one.
    public static var currentTraceparent: String? {
        guard installed != nil else { return nil }
        return InstrumentationContext.current?.traceContext?.parent.header
    }

    /// Log metadata from the task's current span (`traceId`, `spanId`): swift-log calls it for
    /// every line logged, so a line logged inside a span names its trace.
    public static let logMetadata = Logger.MetadataProvider {
        guard let trace = InstrumentationContext.current?.traceContext else { return [:] }
        return [
            "traceId": .string(trace.parent.traceIdHex), "spanId": .string(trace.parent.spanIdHex),
        ]
    }
}
