import HTTPTypes
import Hummingbird

/// Drops the request's `Accept` header before the generated handlers see it.
///
/// Every response of the API has one representation, chosen by the request itself (an image is
/// PNG or JPEG as its body asks), never by `Accept`. The generated code would still check the
/// header when it writes the response and fail after the work was done (`Accept:
/// application/json` on a PDF, what many HTTP clients send by default). So `Accept` is ignored,
/// as RFC 9110 §12.5.1 allows, and the one representation is served whatever it says.
struct SingleRepresentationMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard request.headers[.accept] != nil else { return try await next(request, context) }
        var head = request.head
        head.headerFields[.accept] = nil
        return try await next(Request(head: head, body: request.body), context)
    }
}
