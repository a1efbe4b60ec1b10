import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Gives every request an id (the client's `X-Request-Id` or a new one), puts it on every log
/// line and on the response, and logs one line per request.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    static var header: HTTPField.Name { HTTPField.Name("X-Request-Id")! }
    let logger: Logger
    /// How the path is written in the request's log line.
    let paths: LoggedPath

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let requestId = RequestScope.sanitize(request.headers[Self.header]) ?? UUID().uuidString.lowercased()
        var logger = self.logger
        logger[metadataKey: "requestId"] = .string(requestId)
        let started = ContinuousClock.now
        var response = try await RequestScope.$current.withValue(RequestScope(requestId: requestId, logger: logger)) {
            try await next(request, context)
        }
        response.headers[Self.header] = requestId
        let elapsed = ContinuousClock.now - started
        logger.info(
            "http",
            metadata: [
                "method": "\(request.method)", "path": "\(paths.redact(request.uri.path))",
                "status": "\(response.status.code)",
                "ms":
                    "\(Double(elapsed.components.attoseconds / 10_000_000_000_000) / 100 + Double(elapsed.components.seconds * 1000))",
            ])
        return response
    }
}
