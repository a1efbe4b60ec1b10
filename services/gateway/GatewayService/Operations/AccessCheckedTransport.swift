import Contract
import HTTPTypes
import OpenAPIRuntime
import ServiceKit

/// Registers the generated handlers of the exceptions with the document's access rule in front:
/// a caller without the operation's role is answered 401 or 403 before the generated code decodes
/// the body or any parameter, as on the one path.
struct AccessCheckedTransport<Base: ServerTransport>: ServerTransport {
    let base: Base
    /// Each operation's access rule, by method and path template (`GET /v1/things/{id}`).
    let rules: [String: DocumentOperation.Access]

    init(_ base: Base, operations: [DocumentOperation]) {
        self.base = base
        rules = Dictionary(
            operations.map { ("\($0.method.rawValue) \($0.path)", $0.access) }, uniquingKeysWith: { first, _ in first })
    }

    func register(
        _ handler:
            @Sendable @escaping (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?),
        method: HTTPRequest.Method,
        path: String
    ) throws {
        // A handler the document does not know of has no rule to apply: refuse to start.
        guard let access = rules["\(method.rawValue) \(path)"] else {
            throw AccessCheckedTransportError(route: "\(method.rawValue) \(path)")
        }
        try base.register(
            { request, body, metadata in
                if access != .anyone {
                    guard let scope = RequestScope.current else { throw ServiceError(.internal, "request scope missing") }
                    try access.check(scope)
                }
                return try await handler(request, body, metadata)
            },
            method: method, path: path)
    }
}

/// A generated handler whose route the document has no operation for.
struct AccessCheckedTransportError: Error, CustomStringConvertible {
    let route: String
    var description: String { "\(route) has a generated handler but no operation in the document" }
}
