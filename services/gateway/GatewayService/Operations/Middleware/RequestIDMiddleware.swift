import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceKit
import Synchronization
import Telemetry
import Tracing

/// Gives every request an id (the client's `X-Request-Id` or a new one), puts it on every log
/// line and on the response, and writes the access log: one `http` line per request, or per
/// ``every`` requests (`ACCESS_LOG_EVERY`), and always for an answer of 500 or above.
/// The W3C Trace Context headers (made once: a generic type cannot hold them).
enum TraceHeader {
    static let traceparent = HTTPField.Name("traceparent")!
    static let tracestate = HTTPField.Name("tracestate")!
    /// Level 2's answer to the client: the server span's `traceparent`.
    static let traceresponse = HTTPField.Name("traceresponse")!
}

struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    static var header: HTTPField.Name { HeaderName.requestId }
    let logger: Logger
    /// How the path is written in the request's log line.
    let paths: LoggedPath
    /// One line per this many requests answered below 500; 0: none.
    let every: Int
    private let answered = Counted()

    /// Requests answered so far (shared by the copies the router makes of the middleware).
    private final class Counted: Sendable {
        let count = Atomic<Int>(0)
    }

    /// The handler of `logger` when it writes JSON: the access line then goes to it straight,
    /// without swift-log's metadata dictionary (looked up once, not per request).
    private let json: JSONLogHandler?

    init(logger: Logger, paths: LoggedPath, every: Int = 1) {
        self.logger = logger
        self.paths = paths
        self.every = every
        self.json = logger.handler as? JSONLogHandler
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let requestId = RequestScope.sanitize(request.headers[Self.header]) ?? RequestScope.newRequestId()
        let started = ContinuousClock.now
        var response: Response
        // The request's logger (with its id and trace on every line) is made only if a line is
        // written for the request (`RequestScope.logger`): most requests write none but this
        // middleware's access line, which names them itself.
        var traceId: String?
        if let span = startSpan(request, requestId: requestId) {
            let traceparent = Traces.traceparent(of: span)
            traceId = traceparent.flatMap(TraceParent.traceId(of:))
            let scope = RequestScope(requestId: requestId, logger: logger, traceId: traceId, traceparent: traceparent)
            response = try await traced(span, request, context: context, scope: scope, next: next)
        } else {
            // Tracing off: no span; a valid `traceparent` from the client is passed on as it
            // came, and names the trace on this request's log lines.
            var traceparent: String?
            if let header = request.headers[TraceHeader.traceparent], let id = TraceParent.traceId(of: header) {
                traceparent = header
                traceId = id
            }
            let scope = RequestScope(requestId: requestId, logger: logger, traceId: traceId, traceparent: traceparent)
            response = try await RequestScope.$current.withValue(scope) { try await next(request, context) }
        }
        response.headers[Self.header] = requestId
        let number = answered.count.add(1, ordering: .relaxed).newValue
        guard response.status.code >= 500 || (every > 0 && number % every == 0) else { return response }
        var fields = [
            LogField("method", request.method.rawValue), LogField("ms", Self.milliseconds(ContinuousClock.now - started)),
            LogField("path", paths.redact(request.uri.path)), LogField("requestId", requestId),
            LogField("status", String(response.status.code)),
        ]
        if let traceId { fields.append(LogField("traceId", traceId)) }
        if let json {
            if json.logLevel <= .info { json.log(level: .info, "http", fields: fields) }
        } else {
            logger.log(.info, "http", fields: fields)
        }
        return response
    }

    /// `elapsed` in milliseconds with two decimals (`0.07`, `12.50`), written with integers.
    static func milliseconds(_ elapsed: Duration) -> String {
        let (seconds, attoseconds) = elapsed.components
        let hundredths = max(0, seconds * 100_000 + attoseconds / 10_000_000_000_000)
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// The request's server span, with tracing on: a child of the client's `traceparent` (with
    /// its `tracestate`) when it sent a valid one, else the root of a new trace. None for the
    /// probes.
    private func startSpan(_ request: Request, requestId: String) -> (any Span)? {
        guard Traces.tracer != nil else { return nil }
        // Probes are not traced: a trace every few seconds per prober says nothing.
        let raw = request.uri.path
        if raw == "/healthz" || raw == "/readyz" { return nil }
        let path = paths.redact(raw)
        guard
            let span = Traces.startSpan(
                "\(request.method) \(path)", kind: .server, parent: request.headers[TraceHeader.traceparent],
                state: request.headers[TraceHeader.tracestate])
        else { return nil }
        span.attributes["http.request.method"] = "\(request.method)"
        span.attributes["url.path"] = path
        span.attributes["backplane.request_id"] = requestId
        return span
    }

    /// Runs the request inside `span`. The span's `traceparent` goes to the services called
    /// (``RequestScope/metadata(deadline:idempotencyKey:)``) and back to the client in a
    /// `traceresponse` header (W3C Trace Context level 2), so a client can find its trace.
    private func traced(
        _ span: any Span, _ request: Request, context: Context, scope: RequestScope,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response = try await Traces.within(span) { _ in
            let response = try await RequestScope.$current.withValue(scope) { try await next(request, context) }
            span.attributes["http.response.status_code"] = Int64(response.status.code)
            if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
            return response
        }
        response.headers[TraceHeader.traceresponse] = scope.traceparent
        return response
    }
}
