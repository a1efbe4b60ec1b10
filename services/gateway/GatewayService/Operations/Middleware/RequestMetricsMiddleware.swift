import HTTPTypes
import Hummingbird
import Majordomo
import Metrics
import Synchronization

/// The per-route request metrics, under the names Hummingbird's `MetricsMiddleware` uses (so
/// dashboards and alerts read the same series): `hb_requests` and `hb_request_errors` counters,
/// the `http_server_request_duration` histogram by route, method and status, and the
/// `http_server_active_requests` gauge by method.
///
/// Hummingbird's middleware records after the body is written, by wrapping the response body
/// in a closure. A body that is one buffer (every answer of ours but streams and downloads) is
/// then no longer written as one: the head, the body and the end each cross to the event loop
/// and each leave in a `write` call of their own, three hand-offs and three system calls per
/// response instead of one. This one records when the response is made, and leaves the body as
/// it is. The duration is therefore the time to make the answer; for a stream (`/v1/me/notifications/stream`)
/// that is the time to its first byte, not its whole life.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    private let series = Series()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let started = ContinuousClock.now
        let active = series.active(request.method)
        active.increment()
        defer { active.decrement() }
        do {
            let response = try await next(request, context)
            let endpoint = series.endpoint(context.endpointPath ?? "Unknown", request.method, response.status)
            endpoint.counter.increment()
            endpoint.timer.recordNanoseconds((ContinuousClock.now - started).nanoseconds)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            let endpoint = series.endpoint(context.endpointPath ?? "NotFound", request.method, status)
            endpoint.counter.increment()
            endpoint.errors.increment()
            throw error
        }
    }

    /// The metric objects, made once per method and per route, method and status: a look-up in
    /// the metrics factory takes its lock and builds a label key each time.
    final class Series: Sendable {
        struct Endpoint: Sendable {
            let counter: Counter
            let timer: Timer
            let errors: Counter
        }

        private struct Key: Hashable {
            let route: String
            let method: HTTPRequest.Method
            let status: Int
        }

        private let byMethod = Mutex<[HTTPRequest.Method: Meter]>([:])
        private let byEndpoint = Mutex<[Key: Endpoint]>([:])

        func active(_ method: HTTPRequest.Method) -> Meter {
            if let meter = byMethod.withLock({ $0[method] }) { return meter }
            let meter = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)])
            return byMethod.withLock { all in
                if let existing = all[method] { return existing }
                all[method] = meter
                return meter
            }
        }

        func endpoint(_ route: String, _ method: HTTPRequest.Method, _ status: HTTPResponse.Status) -> Endpoint {
            let key = Key(route: route, method: method, status: status.code)
            if let endpoint = byEndpoint.withLock({ $0[key] }) { return endpoint }
            let dimensions = [
                ("http.route", route), ("http.request.method", method.rawValue),
                ("http.response.status_code", String(status.code)),
            ]
            let made = Endpoint(
                counter: Counter(label: "hb.requests", dimensions: dimensions),
                timer: Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds),
                errors: Counter(
                    label: "hb.request.errors",
                    dimensions: [
                        ("http.route", route), ("http.request.method", method.rawValue),
                        ("error.type", String(status.code)),
                    ]))
            return byEndpoint.withLock { all in
                if let existing = all[key] { return existing }
                all[key] = made
                return made
            }
        }
    }
}
