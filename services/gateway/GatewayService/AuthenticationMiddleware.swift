import Contract
import HTTPTypes
import Hummingbird

/// Reads `Authorization: Bearer <access token>`, verifies it in the gateway and puts the caller
/// into the request scope (and so into the metadata of every call made for the request). A
/// request without the header stays anonymous; endpoints that need a caller refuse it.
struct AuthenticationMiddleware<Context: RequestContext>: RouterMiddleware {
    let verifier: AccessTokenVerifier

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let header = request.headers[.authorization], var scope = RequestScope.current else {
            return try await next(request, context)
        }
        guard header.count > 7, header.prefix(7).lowercased() == "bearer " else {
            throw ServiceError(.unauthenticated, "send the access token as 'Authorization: Bearer <token>'")
        }
        scope.actor = try await verifier.actor(for: String(header.dropFirst(7)))
        return try await RequestScope.$current.withValue(scope) { try await next(request, context) }
    }
}
