import HTTPTypes
import Hummingbird

/// tus 1.0.0 asks every answer of the upload endpoints but `OPTIONS` to carry
/// `Tus-Resumable: 1.0.0`, failures included; the handlers set it on successes, this sets it on
/// the rest (it sits outside the error middleware, so it sees errors as responses).
struct TusResumableMiddleware<Context: RequestContext>: RouterMiddleware {
    static var name: HTTPField.Name { HeaderName.tusResumable }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard request.method != .options, request.uri.path.hasPrefix("/v1/uploads") else {
            return try await next(request, context)
        }
        var response = try await next(request, context)
        if response.headers[Self.name] == nil { response.headers[Self.name] = GatewayAPI.tusVersion }
        return response
    }
}
