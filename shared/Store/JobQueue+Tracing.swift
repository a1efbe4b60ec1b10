import Foundation
import Telemetry
import Tracing

extension JobQueue {
    /// Runs `body`, the work of one claimed `job`, inside a span `job <kind>` (with tracing on):
    /// a child of the trace context stored when the job was queued (``Job/traceparent``), or the
    /// root of a new trace when it has none. While `body` runs the span is the task's current
    /// one, so its log lines name the trace and its SQL and bus calls are children of the span.
    /// The span carries the job's kind, id, table and attempt, never its payload.
    ///
    /// `tracer` is the process's (``Traces/tracer``, nil with tracing off) unless a test gives one.
    public func withSpan<T, E: Error>(
        of job: Job, tracer: (any Tracer)? = Traces.tracer, isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws(E) -> T
    ) async throws(E) -> T {
        guard let span = startSpan(of: job, tracer: tracer) else { return try await body() }
        return try await Traces.within(span, isolation: isolation) { _ throws(E) in try await body() }
    }

    /// The span of a run of `job` (not yet current, not yet ended); nil when tracing is off.
    /// For runners that handle a batch of jobs together (see ``JobSpans``).
    public func startSpan(of job: Job, tracer: (any Tracer)? = Traces.tracer) -> (any Span)? {
        guard
            let span = Traces.startSpan(
                "job \(job.kind)", kind: .consumer, continuing: job.traceparent, tracer: tracer)
        else { return nil }
        span.attributes["messaging.system"] = "backplane-jobs"
        span.attributes["messaging.operation.type"] = "process"
        span.attributes["messaging.destination.name"] = "\(schema).\(table)"
        span.attributes["messaging.message.id"] = job.id.uuidString.lowercased()
        span.attributes["job.kind"] = job.kind
        span.attributes["job.attempt"] = job.attempts
        return span
    }
}

/// The spans of a batch of claimed jobs handled together (notify's deliverer): one per job,
/// started when the batch is claimed, current while that job's own part runs
/// (``within(_:isolation:_:)``), ended when the batch's outcome is recorded (``end(_:failed:)``,
/// ``endAll()``). With tracing off it holds nothing and costs a lookup in an empty dictionary.
public struct JobSpans: Sendable {
    private let spans: [UUID: any Span]

    /// Starts the spans of `jobs`, claimed from `queue` (with `tracer`, as in
    /// ``JobQueue/withSpan(of:tracer:isolation:_:)``).
    public init(_ jobs: [Job], queue: JobQueue, tracer: (any Tracer)? = Traces.tracer) {
        guard tracer != nil else {
            spans = [:]
            return
        }
        var spans: [UUID: any Span] = [:]
        for job in jobs {
            if let span = queue.startSpan(of: job, tracer: tracer) { spans[job.id] = span }
        }
        self.spans = spans
    }

    /// The span of `job`, if it has one.
    public subscript(job: Job) -> (any Span)? { spans[job.id] }

    /// Runs `body` with `job`'s span as the task's current span (without ending it).
    public func within<T, E: Error>(
        _ job: Job, isolation: isolated (any Actor)? = #isolation, _ body: () async throws(E) -> T
    ) async throws(E) -> T {
        guard let span = spans[job.id] else { return try await body() }
        let result: Result<T, E> = await InstrumentationContext.$current.withValue(span.context) {
            do throws(E) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Ends `job`'s span, marked failed when `failed`.
    public func end(_ job: Job, failed: Bool) {
        guard let span = spans[job.id] else { return }
        if failed { span.setStatus(SpanStatus(code: .error)) }
        span.end()
    }

    /// Ends every span not ended yet.
    public func endAll() {
        for span in spans.values { span.end() }
    }
}
