import HTTPTypes
import Hummingbird

/// Writes `ETag`, `Cache-Control` and `Location` as HTTP says they are written.
///
/// The generated handlers set these response headers from `openapi.yaml`, and the OpenAPI
/// runtime writes every header value in the URI style, percent-encoding what a URI reserves:
/// `"3f2a"` would leave as `%223f2a%22`, and `public, max-age=60` as `public%2C%20max-age%3D60`,
/// which no cache understands (and `/v1/uploads/{id}` as `%2Fv1%2Fuploads...`, which no client
/// follows). The values are quoted-string and token text, and paths of ours, that never hold a
/// `%` of their own, so decoding them here restores them exactly.
struct CacheHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var fields: [HTTPField.Name] { [.eTag, .cacheControl, .location] }

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
