import HTTPTypes
import Hummingbird

/// Writes `ETag` and `Cache-Control` as HTTP says they are written.
///
/// The generated handlers set these response headers from `openapi.yaml`, and the OpenAPI
/// runtime writes every header value in the URI style, percent-encoding what a URI reserves:
/// `"3f2a"` would leave as `%223f2a%22`, and `public, max-age=60` as `public%2C%20max-age%3D60`,
/// which no cache understands. Both values are quoted-string and token text that never holds a
/// `%` of its own, so decoding them here restores them exactly.
struct CacheHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var fields: [HTTPField.Name] { [.eTag, .cacheControl] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response = try await next(request, context)
        for name in Self.fields {
            if let value = response.headers[name], value.contains("%"), let decoded = value.removingPercentEncoding {
                response.headers[name] = decoded
            }
        }
        return response
    }
}
