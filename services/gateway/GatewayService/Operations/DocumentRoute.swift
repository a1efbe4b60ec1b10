import Contract
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceKit

/// An operation of the document served on the one path: the gateway checks who calls (401, or
/// 403 for a missing role, before anything of the request is read), turns the path, query and
/// header parameters into the payload as their schemas say (400 naming one that does not fit), reads
/// the JSON body as it came, makes one bus call to the owner and answers the owner's reply bytes.
/// The owner decodes and validates the payload and answers in the document's shapes.
///
/// The payload is the body when the operation has no parameters; otherwise an object of the
/// parameters given, followed by the body's members (a body member named like a parameter is a
/// 400), or `{}`.
struct DocumentRoute: Sendable {
    let spec: DocumentOperation
    /// The owner: one service, or the one a path parameter names (`{service}`, its schema listing
    /// the services).
    enum Owner: Sendable {
        case service(ServiceName)
        case named(byParameter: String)
    }
    let owner: Owner
    let operation: String
    private let status: (created: HTTPResponse.Status, found: HTTPResponse.Status)

    init(_ spec: DocumentOperation) throws {
        guard let operation = spec.operation, spec.service != "*", spec.service != "gateway" else {
            throw DocumentOperation.DocumentError("\(spec.operationId) has no single owner to call")
        }
        if spec.service.hasPrefix("{"), spec.service.hasSuffix("}") {
            let name = String(spec.service.dropFirst().dropLast())
            guard spec.parameters.contains(where: { $0.name == name && $0.location == .path && $0.allowed != nil })
            else {
                throw DocumentOperation.DocumentError(
                    "\(spec.operationId): its owner is the path parameter \(name), which must list the services")
            }
            owner = .named(byParameter: name)
        } else {
            owner = .service(ServiceName(spec.service))
        }
        guard spec.otherHeaders.isEmpty, spec.otherBodyTypes.isEmpty else {
            throw DocumentOperation.DocumentError(
                "\(spec.operationId) takes \((spec.otherHeaders + spec.otherBodyTypes).joined(separator: ", ")), "
                    + "which the gateway does not pass on: list it in GatewayExceptions")
        }
        self.spec = spec
        self.operation = operation
        status = (
            HTTPResponse.Status(code: spec.status(created: true)), HTTPResponse.Status(code: spec.status(created: false))
        )
    }

    /// The routes of every operation of `document` that is not an exception (``GatewayExceptions``),
    /// read once per process. An operation that needs more than this path gives and is not listed
    /// as an exception stops the gateway at start, naming it.
    static func all(in document: [UInt8]) throws -> [DocumentRoute] {
        try DocumentOperation.read(document)
            .filter { GatewayExceptions.kind(of: $0.operationId) == nil }
            .map(DocumentRoute.init)
    }

    /// Serves the route on `router`, calling through `bus` with `timeout` as the deadline.
    func register<Context: RequestContext>(on router: Router<Context>, bus: BusClient, timeout: Duration) {
        router.on(RouterPath(spec.path), method: spec.method) { request, context in
            try await self.answer(
                request, parameters: context.parameters, maxBody: context.maxUploadSize, bus: bus, timeout: timeout)
        }
    }

    private func answer(
        _ request: Request, parameters: Parameters, maxBody: Int, bus: BusClient, timeout: Duration
    ) async throws -> Response {
        guard let scope = RequestScope.current else { throw ServiceError(.internal, "request scope missing") }
        try spec.access.check(scope)
        var idempotencyKey: String?
        if spec.takesIdempotencyKey, let key = request.headers[Self.idempotencyKey] {
            idempotencyKey = try IdempotencyKey.validated(key)
        } else if spec.requiresIdempotencyKey {
            throw ServiceError.invalidArgument(IdempotencyKey.rule, field: IdempotencyKey.header)
        }
        let given = try parameterObject(
            path: parameters, query: request.uri.queryParameters, headers: request.headers)
        var payload = given.map { $0 + [UInt8(ascii: "}")] } ?? Self.emptyObject
        if spec.jsonBody {
            let limit = min(spec.maxBodyBytes ?? maxBody, maxBody)
            guard let body = try await Self.jsonBody(of: request, upTo: limit) else {
                return Self.tooLarge(limit, requestId: scope.requestId)
            }
            if body.readableBytes == 0 {
                if spec.bodyRequired {
                    throw ServiceError(.invalidArgument, "send a JSON body (Content-Type: application/json)")
                }
            } else {
                payload = try Self.merge(
                    given, body: Array(body.readableBytesView), names: spec.parameters.map(\.name) + spec.constants.map(\.name))
            }
        }
        let service: ServiceName
        switch owner {
        case .service(let name): service = name
        // Checked against the parameter's list of services with the other parameters.
        case .named(let parameter): service = ServiceName(parameters.get(parameter)?.removingPercentEncoding ?? "")
        }
        let reply = try await bus.reply(
            operation, on: service, payloadJSON: payload,
            metadata: scope.metadata(deadline: timeout, idempotencyKey: idempotencyKey), timeout: timeout)
        let status = reply.created ? status.created : status.found
        // A 204 has no content (RFC 9110 §15.3.5): the service's empty reply is not sent.
        if status == .noContent { return Response(status: status) }
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if spec.tagged, let tag = EntityTag(reply.payload, from: .content) {
            let cache: HTTPFields = [
                .eTag: tag.value, .cacheControl: spec.cacheControl ?? EntityTag.privateCacheControl,
            ]
            if spec.method == .get, tag.isMatched(by: request.headers[.ifNoneMatch]) {
                return Response(status: .notModified, headers: cache)
            }
            headers.append(contentsOf: cache)
        } else if let cacheControl = spec.cacheControl {
            headers[.cacheControl] = cacheControl
        }
        return Response(
            status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.payload)))
    }

    /// `{"name":value,...` (no closing brace yet) of the parameters given, or nil when none was.
    private func parameterObject(
        path: Parameters, query: Parameters, headers: HTTPFields
    ) throws(ServiceError) -> [UInt8]? {
        guard !spec.parameters.isEmpty || !spec.constants.isEmpty else { return nil }
        var json: [UInt8]?
        for (name, value) in spec.constants {
            json = json.map { $0 + [UInt8(ascii: ",")] } ?? [UInt8(ascii: "{")]
            json!.appendJSONStringLiteral(name)
            json!.append(UInt8(ascii: ":"))
            json!.appendJSONStringLiteral(value)
        }
        for parameter in spec.parameters {
            let values: [Substring]
            switch parameter.location {
            case .path:
                // A path segment arrives percent-encoded; its schema describes the text.
                guard let raw = path.get(parameter.name) else { values = []; break }
                guard let text = raw.removingPercentEncoding else {
                    throw ServiceError.invalidArgument(
                        "\(parameter.name) is not valid percent-encoded UTF-8", field: parameter.name)
                }
                values = [Substring(text)]
            case .query: values = query[values: Substring(parameter.name)]
            case .header:
                // The document's names are field names; one that is not cannot have been sent.
                let field = HTTPField.Name(parameter.name)
                values = field.map { name in headers[values: name].map { Substring($0) } } ?? []
            }
            if values.isEmpty {
                if parameter.required {
                    throw ServiceError.invalidArgument("\(parameter.name) is required", field: parameter.name)
                }
                continue
            }
            if !parameter.isArray, values.count > 1 {
                throw ServiceError.invalidArgument("give '\(parameter.name)' at most once", field: parameter.name)
            }
            if json == nil {
                json = [UInt8(ascii: "{")]
            } else {
                json!.append(UInt8(ascii: ","))
            }
            json!.appendJSONStringLiteral(parameter.name)
            json!.append(UInt8(ascii: ":"))
            if parameter.isArray {
                json!.append(UInt8(ascii: "["))
                for (index, value) in values.enumerated() {
                    if index > 0 { json!.append(UInt8(ascii: ",")) }
                    try Self.append(value, of: parameter, to: &json!)
                }
                json!.append(UInt8(ascii: "]"))
            } else {
                try Self.append(values[0], of: parameter, to: &json!)
            }
        }
        return json
    }

    /// `value` as the JSON its schema asks for; one that does not fit is a 400 naming the parameter.
    private static func append(
        _ value: Substring, of parameter: DocumentOperation.Parameter, to json: inout [UInt8]
    ) throws(ServiceError) {
        let name = parameter.name
        if let allowed = parameter.allowed, !allowed.contains(String(value)) {
            throw ServiceError.invalidArgument("\(name) must be one of \(allowed.joined(separator: ", "))", field: name)
        }
        switch parameter.kind {
        case .string:
            if let minLength = parameter.minLength, value.count < minLength {
                throw ServiceError.invalidArgument("\(name) is at least \(minLength) characters", field: name)
            }
            if let maxLength = parameter.maxLength, value.count > maxLength {
                throw ServiceError.invalidArgument("\(name) is at most \(maxLength) characters", field: name)
            }
            json.appendJSONStringLiteral(String(value))
        case .integer:
            guard let number = Int(value) else {
                throw ServiceError.invalidArgument("\(name) must be an integer", field: name)
            }
            try checkRange(Double(number), of: parameter)
            json.appendJSONNumber(number)
        case .number:
            guard let number = Double(value), number.isFinite else {
                throw ServiceError.invalidArgument("\(name) must be a number", field: name)
            }
            try checkRange(number, of: parameter)
            json.append(contentsOf: Array(value.utf8))
        case .boolean:
            guard value == "true" || value == "false" else {
                throw ServiceError.invalidArgument("\(name) must be true or false", field: name)
            }
            json.append(contentsOf: Array(value.utf8))
        }
    }

    private static func checkRange(_ value: Double, of parameter: DocumentOperation.Parameter) throws(ServiceError) {
        if let minimum = parameter.minimum, value < minimum {
            throw ServiceError.invalidArgument(
                "\(parameter.name) is at least \(Self.text(minimum))", field: parameter.name)
        }
        if let maximum = parameter.maximum, value > maximum {
            throw ServiceError.invalidArgument(
                "\(parameter.name) is at most \(Self.text(maximum))", field: parameter.name)
        }
    }

    private static func text(_ bound: Double) -> String {
        bound == bound.rounded() ? String(Int(bound)) : String(bound)
    }

    /// The payload of a request with parameters and a body: the parameters' members, then the
    /// body's. The body as it came when there are no parameters.
    static func merge(
        _ parameters: [UInt8]?, body: [UInt8], names: [String]
    ) throws(ServiceError) -> [UInt8] {
        guard !names.isEmpty else { return body }
        var reader = JSONReader(body)
        var clash: String?
        do {
            try reader.readObject { reader, key throws(JSONReader.Malformed) in
                if clash == nil, names.contains(key) { clash = key }
                try reader.skipValue()
            }
            try reader.finish()
        } catch {
            throw ServiceError(.invalidArgument, "the body must be a JSON object")
        }
        if let clash {
            throw ServiceError.invalidArgument(
                "\(clash) is given as a parameter (path, query or header), not in the body", field: clash)
        }
        guard var merged = parameters else { return body }
        // The body's members after its `{`, or nothing when it is `{}`.
        let open = body.firstIndex(of: UInt8(ascii: "{"))!
        let rest = body[(open + 1)...]
        if rest.contains(where: { !Self.isWhitespace($0) && $0 != UInt8(ascii: "}") }) {
            merged.append(UInt8(ascii: ","))
            merged.append(contentsOf: rest)
        } else {
            merged.append(UInt8(ascii: "}"))
        }
        return merged
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
            || byte == UInt8(ascii: "\t")
    }

    /// The request's body, when its type is JSON (a 400 otherwise), or nil when it is longer than
    /// `limit` bytes (it is not read further).
    static func jsonBody(of request: Request, upTo limit: Int) async throws -> ByteBuffer? {
        if let type = request.headers[.contentType], !isJSON(type) {
            throw ServiceError(
                .invalidArgument, "send the body as application/json (got \(type.prefix(100)))",
                details: ["field": .string("Content-Type")])
        }
        do {
            return try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            return nil
        }
    }

    /// The 413 for a body past `limit` bytes.
    static func tooLarge(_ limit: Int, requestId: String) -> Response {
        ErrorMiddleware<BasicRequestContext>.response(
            for: ServiceError(
                .invalidArgument, "the body is at most \(limit) bytes", details: ["reason": "too_large", "field": "body"]),
            requestId: requestId, status: .contentTooLarge)
    }

    /// `{}`, the payload of a request with nothing in it.
    static let emptyObject: [UInt8] = Array("{}".utf8)
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!

    /// `application/json`, or a `+json` type, with any parameters.
    static func isJSON(_ contentType: String) -> Bool {
        let type = contentType.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased()
        return type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
    }
}
