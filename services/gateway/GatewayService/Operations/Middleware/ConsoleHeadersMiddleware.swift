import HTTPTypes
import Hummingbird

/// The operator console's security headers on every response under `/console`: a strict
/// Content-Security-Policy (only our own files; no inline script or style, no plug-ins, no
/// framing, forms and fetches to this origin only), no MIME sniffing, no referrer, and no reuse
/// without asking (a new gateway's files show at once).
struct ConsoleHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var policy: String {
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    }

    static func applies(to path: String) -> Bool { path == "/console" || path.hasPrefix("/console/") }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard Self.applies(to: request.uri.path) else { return try await next(request, context) }
        var response = try await next(request, context)
        response.headers[HTTPField.Name("Content-Security-Policy")!] = Self.policy
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[.cacheControl] = "no-cache"
        return response
    }
}
