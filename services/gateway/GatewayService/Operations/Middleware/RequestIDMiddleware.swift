import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// Gives every request an id (the client's `X-Request-Id` or a new one), puts it on every log
/// line and on the response, and writes the access log: one `http` line per request, or per
/// ``every`` requests (`ACCESS_LOG_EVERY`), and always for an answer of 500 or above.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    static var header: HTTPField.Name { HTTPField.Name("X-Request-Id")! }
    let logger: Logger
    /// How the path is written in the request's log line.
    let paths: LoggedPath
    /// One line per this many requests answered below 500; 0: none.
    let every: Int
    private let answered = Counted()

    /// Requests answered so far (shared by the copies the router makes of the middleware).
    private final class Counted: Sendable {
        let count = Atomic<Int>(0)
    }

    init(logger: Logger, paths: LoggedPath, every: Int = 1) {
        self.logger = logger
        self.paths = paths
        self.every = every
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let requestId = RequestScope.sanitize(request.headers[Self.header]) ?? RequestScope.newRequestId()
        var logger = self.logger
        logger[metadataKey: "requestId"] = .string(requestId)
        let started = ContinuousClock.now
        var response = try await RequestScope.$current.withValue(RequestScope(requestId: requestId, logger: logger)) {
            try await next(request, context)
        }
        response.headers[Self.header] = requestId
        let number = answered.count.add(1, ordering: .relaxed).newValue
        guard response.status.code >= 500 || (every > 0 && number % every == 0) else { return response }
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
