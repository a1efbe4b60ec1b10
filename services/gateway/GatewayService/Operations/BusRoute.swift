import Contract
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceKit

/// A public endpoint the gateway serves by passing bytes through: it checks the caller, builds
/// the operation's payload (the request's JSON body as it came, or a few path and query
/// parameters), makes one bus call and answers the service's reply payload as the response body,
/// undecoded. The service that owns the rules decodes and checks the request (it does anyway)
/// and its reply is the public JSON already, so the gateway's JSON work per request is the small
/// metadata frame. The OpenAPI document stays the contract: the API fuzz and the generated
/// client's tests hold both sides to it.
///
/// Endpoints not (yet) served this way go through the handlers generated from the document
/// (``GatewayAPI``); `openapi-generator-config.yaml` lists those, and ``BusRoute/all`` these,
/// and a test checks that every operation of the document is in exactly one of the two.
struct BusRoute: Sendable {
    /// Who may call.
    enum Access: Sendable {
        /// Only a signed-in caller (401 otherwise).
        case signedIn
        /// Anyone; the caller goes along when there is one.
        case anyone
    }

    /// The request parts a payload is made from.
    struct Input: Sendable {
        /// The path's parameters by name.
        let parameters: Parameters
        /// The query, decoded.
        let query: [String: [String]]
        /// The body (only collected for ``forwardingBody(_:_:_:_:access:status:)`` and
        /// ``rawBody(_:_:_:_:access:status:_:)`` routes).
        let body: ByteBuffer?
        /// The request's headers.
        var headers: HTTPFields = [:]

        /// The one value of query parameter `name`, or nil; given twice is a 400.
        func string(_ name: String) throws(ServiceError) -> String? {
            guard let values = query[name] else { return nil }
            guard values.count == 1 else {
                throw ServiceError.invalidArgument("give '\(name)' at most once", field: name)
            }
            return values[0]
        }

        /// Query parameter `name` as an integer, or nil when absent (its range is the service's rule).
        func integer(_ name: String) throws(ServiceError) -> Int? {
            guard let text = try string(name) else { return nil }
            guard let value = Int(text) else {
                throw ServiceError.invalidArgument("\(name) must be an integer", field: name)
            }
            return value
        }

        /// Query parameter `name` as a finite number, or nil when absent.
        func number(_ name: String) throws(ServiceError) -> Double? {
            guard let text = try string(name) else { return nil }
            guard let value = Double(text), value.isFinite else {
                throw ServiceError.invalidArgument("\(name) must be a number", field: name)
            }
            return value
        }

        /// The JSON body as a `T`; none, or one that does not decode, is `invalid_argument`
        /// naming the member at fault as the services do (`recipients[0].address`).
        func decodedBody<T: Decodable>(_ type: T.Type) throws(ServiceError) -> T {
            guard let body, body.readableBytes > 0 else {
                throw ServiceError(.invalidArgument, "send a JSON body (Content-Type: application/json)")
            }
            do {
                return try Wire.makeDecoder().decode(T.self, from: Data(body.readableBytesView))
            } catch {
                var details: [String: JSONValue] = [:]
                if let field = ErrorMiddleware<BasicRequestContext>.fieldPath(of: error) {
                    details["field"] = .string(field)
                }
                throw ServiceError(.invalidArgument, "the body does not match the API", details: details)
            }
        }

        /// Path parameter `name` (the router only matches a path that has it).
        func path(_ name: String) -> String { parameters.get(name) ?? "" }
    }

    /// The document's `operationId`.
    let operationId: String
    let method: HTTPRequest.Method
    /// The path template as the document writes it (`/v1/things/{id}`).
    let path: String
    let service: ServiceName
    /// The bus operation's name.
    let operation: String
    let access: Access
    /// The status of a successful answer.
    let status: HTTPResponse.Status
    /// Whether the request's body is read (it is the payload).
    let readsBody: Bool
    /// The most bytes of body this route reads, when less than the gateway's upload limit. A
    /// longer body (or one past the upload limit) is answered 413 (`invalid_argument`,
    /// `details.reason` `too_large`) and not sent on.
    var bodyLimit: Int? = nil
    /// The bus payload (JSON) for a request.
    let payload: @Sendable (Input) throws(ServiceError) -> [UInt8]
    /// Headers of a successful answer that the request decides (e.g. `Content-Language` from
    /// `Accept-Language`), made before the call so that a bad header or parameter is a 400 first.
    var replyHeaders: (@Sendable (Input) throws(ServiceError) -> HTTPFields)? = nil
    /// Whether and how the reply gets an `ETag` (see ``tagged(_:cacheControl:)``).
    var tagging: EntityTag.Source = .none
    /// The `Cache-Control` of a successful answer (and of a 304), if any.
    var cacheControl: String?

    /// This route with `ETag` on its replies from `source`, `cacheControl` (by default
    /// `private, no-cache`: a private reply the client keeps and asks again about), and, on a GET
    /// whose `If-None-Match` names the tag, a 304 with no body.
    func tagged(_ source: EntityTag.Source, cacheControl: String = EntityTag.privateCacheControl) -> BusRoute {
        var route = self
        route.tagging = source
        route.cacheControl = cacheControl
        return route
    }

    /// This route with `Cache-Control: cacheControl` on its successful answers (and no tag).
    func cached(_ cacheControl: String) -> BusRoute {
        var route = self
        route.cacheControl = cacheControl
        return route
    }

    /// A route whose payload is the request's JSON body, forwarded as it came (at most
    /// `bodyLimit` bytes of it, if given: 413 beyond).
    static func forwardingBody<Op: ServiceOperation>(
        _ operationId: String, _ method: HTTPRequest.Method, _ path: String, _ operation: Op.Type,
        access: Access, status: HTTPResponse.Status = .ok, bodyLimit: Int? = nil
    ) -> BusRoute {
        BusRoute(
            operationId: operationId, method: method, path: path, service: Op.service, operation: Op.name,
            access: access, status: status, readsBody: true, bodyLimit: bodyLimit,
            payload: { input throws(ServiceError) in
                guard let body = input.body, body.readableBytes > 0 else {
                    throw ServiceError(.invalidArgument, "send a JSON body (Content-Type: application/json)")
                }
                return Array(body.readableBytesView)
            })
    }

    /// A route whose payload is made from path and query parameters (or is empty); a successful
    /// answer carries `replyHeaders` of the request, if given.
    static func building<Op: ServiceOperation>(
        _ operationId: String, _ method: HTTPRequest.Method, _ path: String, _ operation: Op.Type,
        access: Access, status: HTTPResponse.Status = .ok,
        replyHeaders: (@Sendable (Input) throws(ServiceError) -> HTTPFields)? = nil,
        _ request: @escaping @Sendable (Input) throws(ServiceError) -> Op.Request
    ) -> BusRoute {
        var route = encoding(
            operationId, method, path, operation, access: access, status: status, readsBody: false, request)
        route.replyHeaders = replyHeaders
        return route
    }

    /// A route whose payload is made from the request's exact body bytes and its headers (a
    /// webhook, whose signature covers the bytes as sent).
    static func rawBody<Op: ServiceOperation>(
        _ operationId: String, _ method: HTTPRequest.Method, _ path: String, _ operation: Op.Type,
        access: Access, status: HTTPResponse.Status = .ok,
        _ request: @escaping @Sendable (Input) throws(ServiceError) -> Op.Request
    ) -> BusRoute {
        encoding(operationId, method, path, operation, access: access, status: status, readsBody: true, request)
    }

    /// A route whose payload is `request`'s value, encoded; with `readsBody`, the body is read first.
    private static func encoding<Op: ServiceOperation>(
        _ operationId: String, _ method: HTTPRequest.Method, _ path: String, _ operation: Op.Type,
        access: Access, status: HTTPResponse.Status, readsBody: Bool,
        _ request: @escaping @Sendable (Input) throws(ServiceError) -> Op.Request
    ) -> BusRoute {
        BusRoute(
            operationId: operationId, method: method, path: path, service: Op.service, operation: Op.name,
            access: access, status: status, readsBody: readsBody,
            payload: { input throws(ServiceError) in
                let value = try request(input)
                // An empty request is `{}` every time: no encoder for it.
                if Op.Request.self == Empty.self { return DocumentRoute.emptyObject }
                do {
                    return Array(try Wire.makeEncoder().encode(value))
                } catch {
                    throw ServiceError(.internal, "could not encode the \(Op.name) request")
                }
            })
    }

    /// Serves the route on `router`, calling through `bus` with `timeout` as the deadline.
    func register<Context: RequestContext>(on router: Router<Context>, bus: BusClient, timeout: Duration) {
        router.on(RouterPath(path), method: method) { request, context in
            try await self.answer(
                request, parameters: context.parameters, maxBody: context.maxUploadSize, bus: bus, timeout: timeout)
        }
    }

    private func answer(
        _ request: Request, parameters: Parameters, maxBody: Int, bus: BusClient, timeout: Duration
    ) async throws -> Response {
        guard let scope = RequestScope.current else { throw ServiceError(.internal, "request scope missing") }
        if access == .signedIn { _ = try scope.requireActor() }
        var body: ByteBuffer?
        if readsBody {
            // A body past the route's limit (or the gateway's) is answered 413 here, unread.
            let limit = min(bodyLimit ?? maxBody, maxBody)
            guard let collected = try await DocumentRoute.jsonBody(of: request, upTo: limit) else {
                return DocumentRoute.tooLarge(limit, requestId: scope.requestId)
            }
            body = collected
        }
        let input = Input(
            parameters: parameters, query: Self.values(of: request.uri.queryParameters), body: body,
            headers: request.headers)
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let replyHeaders { headers.append(contentsOf: try replyHeaders(input)) }
        let reply = try await bus.call(
            operation, on: service, payloadJSON: try payload(input), metadata: scope.metadata(deadline: timeout),
            timeout: timeout)
        // A 204 has no content (RFC 9110 §15.3.5): the service's empty reply is not sent.
        if status == .noContent { return Response(status: status) }
        if let tag = EntityTag(reply, from: tagging) {
            let cache: HTTPFields = [.eTag: tag.value, .cacheControl: cacheControl ?? EntityTag.privateCacheControl]
            if method == .get, tag.isMatched(by: request.headers[.ifNoneMatch]) {
                return Response(status: .notModified, headers: cache)
            }
            headers.append(contentsOf: cache)
        } else if let cacheControl {
            headers[.cacheControl] = cacheControl
        }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply)))
    }

    /// Every value of each query parameter.
    static func values(of parameters: Parameters) -> [String: [String]] {
        var values: [String: [String]] = [:]
        for (key, value) in parameters { values[String(key), default: []].append(String(value)) }
        return values
    }
}
