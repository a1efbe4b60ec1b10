import HTTPTypes
import Hummingbird

/// Drops the request's `Accept` header before the generated handlers see it.
///
/// Every response of the API has one representation, chosen by the request itself (an image is
/// PNG or JPEG as its body asks), never refused for `Accept`. The generated code would still
/// check the header when it writes the response and fail after the work was done (`Accept:
/// application/json` on a PDF, what many HTTP clients send by default). So the generated code
/// never sees `Accept`, as RFC 9110 §12.5.1 allows, and the one representation is served
/// whatever it says. A handler that lets `Accept` choose among its types (a postcard preview,
/// JPEG or PNG) reads it from ``RequestAccept/header``.
struct SingleRepresentationMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let accept = request.headers[.accept] else { return try await next(request, context) }
        var head = request.head
        head.headerFields[.accept] = nil
        return try await RequestAccept.$header.withValue(accept) {
            try await next(Request(head: head, body: request.body), context)
        }
    }
}

/// The `Accept` header of the request being handled (all its fields, comma-joined), kept by
/// ``SingleRepresentationMiddleware``.
enum RequestAccept {
    @TaskLocal static var header: String?
}
