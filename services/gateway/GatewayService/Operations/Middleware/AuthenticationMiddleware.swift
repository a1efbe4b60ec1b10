import Contract
import HTTPTypes
import Hummingbird
import Metrics

/// Reads `Authorization: Bearer <access token>`, verifies it in the gateway and puts the caller
/// into the request scope (and so into the metadata of every call made for the request). A
/// request without the header stays anonymous; endpoints that need a caller refuse it.
struct AuthenticationMiddleware<Context: RequestContext>: RouterMiddleware {
    let verifier: AccessTokenVerifier
    /// The histogram's two series, made once: making a metric asks the metrics system's registry
    /// (a lock and a look-up by label and dimensions), which every request paid.
    private let verifiedValid: Timer
    private let verifiedInvalid: Timer

    /// A middleware checking tokens with `verifier`; metrics go to the system bootstrapped now.
    init(verifier: AccessTokenVerifier) {
        self.verifier = verifier
        verifiedValid = Timer(label: Self.verificationMetric, dimensions: [("outcome", "valid")])
        verifiedInvalid = Timer(label: Self.verificationMetric, dimensions: [("outcome", "invalid")])
    }

    /// Histogram of the time to verify an access token (seconds), by `outcome` valid/invalid.
    static var verificationMetric: String { "backplane_gateway_token_verification_seconds" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let header = request.headers[.authorization], var scope = RequestScope.current else {
            return try await next(request, context)
        }
        guard header.count > 7, header.prefix(7).lowercased() == "bearer " else {
            throw ServiceError(.unauthenticated, "send the access token as 'Authorization: Bearer <token>'")
        }
        let started = ContinuousClock.now
        do {
            scope.actor = try await verifier.actor(for: String(header.dropFirst(7)))
            verifiedValid.record(duration: ContinuousClock.now - started)
        } catch {
            verifiedInvalid.record(duration: ContinuousClock.now - started)
            throw error
        }
        return try await RequestScope.$current.withValue(scope) { try await next(request, context) }
    }
}
