import HTTPTypes
import Hummingbird

/// The operator console's security headers on every response under `/console`: a strict
/// Content-Security-Policy (only our own files; no inline script or style, no plug-ins, no
/// framing, forms and fetches to this origin only), no MIME sniffing, no referrer, and no reuse
/// without asking (a new gateway's files show at once).
///
/// The API reference under `/docs` (``APIReference``) gets the same headers, the same policy
/// included: Swagger UI 5 needs no exception to it (it sets styles through the DOM, which the
/// policy allows, never inline `<style>` or `style=`; its icons are `data:` images; it fetches
/// only `/openapi.yaml`), checked in a browser by Tests/console/test_docs.py. It keeps the
/// `Cache-Control` its routes set (Swagger UI's files are cached for a day, tagged by their bytes).
struct ConsoleHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var policy: String {
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    }

    static func isConsole(_ path: String) -> Bool { path == "/console" || path.hasPrefix("/console/") }

    static func isDocs(_ path: String) -> Bool { path == "/docs" || path.hasPrefix("/docs/") }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let path = request.uri.path
        let docs = Self.isDocs(path)
        guard docs || Self.isConsole(path) else { return try await next(request, context) }
        var response = try await next(request, context)
        response.headers[HTTPField.Name("Content-Security-Policy")!] = Self.policy
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        if !docs || response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-cache" }
        return response
    }
}
