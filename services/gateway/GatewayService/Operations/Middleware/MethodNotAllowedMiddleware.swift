import Contract
import HTTPTypes
import Hummingbird

/// The router answers a known path asked with a method it does not have as it answers an unknown
/// path (404). This turns that case into 405 `method_not_allowed` with an `Allow` header listing
/// the path's methods (RFC 9110 §15.5.6), from the routes the API registered.
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let methods = routes.methods(for: request.uri.path)
            guard !methods.isEmpty, !methods.contains(request.method) else { throw error }
            let allow = methods.map(\.rawValue).joined(separator: ", ")
            var response = ErrorMiddleware<Context>.response(
                for: ServiceError(
                    .methodNotAllowed, "\(request.method.rawValue) is not allowed here; use \(allow)",
                    details: ["allow": .array(methods.map { .string($0.rawValue) })]),
                requestId: RequestScope.current?.requestId ?? "-")
            response.headers[.allow] = allow
            return response
        }
    }
}
