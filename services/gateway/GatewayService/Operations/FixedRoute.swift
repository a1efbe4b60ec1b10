import HTTPTypes
import Hummingbird
import NIOCore

/// An endpoint whose answer is the same bytes every time, made once at start and served by the
/// router directly: no generated handler, no JSON encoding per request. `GET /healthz` is asked
/// by every prober and load balancer every few seconds, so what it costs is the gateway's floor.
///
/// The OpenAPI document describes these as it describes the rest; ``BusRouteTests`` checks that
/// each operation of the document is served in exactly one place (generated, pass-through or
/// fixed).
struct FixedRoute: Sendable {
    /// The document's `operationId`.
    let operationId: String
    let method: HTTPRequest.Method
    let path: String
    /// The response's `Content-Type`.
    let contentType: String
    /// The response body.
    let body: [UInt8]

    /// `GET /healthz`: `{"status":"ok"}` as long as the process answers HTTP.
    static let healthz = FixedRoute(
        operationId: "getHealthz", method: .get, path: "/healthz", contentType: "application/json; charset=utf-8",
        body: Array(#"{"status":"ok"}"#.utf8))

    /// Every fixed route, registered by ``Gateway/buildApplication(settings:bus:logger:listener:services:now:eventLoopGroup:)``.
    static let all: [FixedRoute] = [healthz]

    /// Serves the route on `router`.
    func register<Context: RequestContext>(on router: Router<Context>) {
        let buffer = ByteBuffer(bytes: body)
        let headers: HTTPFields = [.contentType: contentType]
        router.on(RouterPath(path), method: method) { _, _ in
            Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: buffer))
        }
    }
}
