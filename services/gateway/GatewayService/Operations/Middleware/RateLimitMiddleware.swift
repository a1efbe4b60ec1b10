import Contract
import Foundation
import HTTPTypes
import Hummingbird
import Metrics

/// Refuses a request over its route class's ``RateLimit`` with `429 rate_limited` and
/// `Retry-After`, before any call reaches the broker.
///
/// The gateway runs it twice: keyed by client address before the access token is verified (so a
/// flood costs no verification), and keyed by account after it, for requests that carry one.
struct RateLimitMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
    /// What a request is counted by.
    enum Key: String {
        /// The client's address (see ``ClientAddressResolver``).
        case address
        /// The signed-in account; requests without one pass.
        case account
    }

    let key: Key
    let limiter: RateLimiter
    let resolver: ClientAddressResolver
    /// Nanoseconds on a monotonic clock.
    let now: @Sendable () -> Int64

    /// Counter of refused requests, by `class` and `key`.
    static var refusedMetric: String { "backplane_gateway_rate_limited_total" }
    /// Counter of requests let through uncounted because the table was full, by `class`.
    static var untrackedMetric: String { "backplane_gateway_rate_limit_untracked_total" }

    static var forwardedFor: HTTPField.Name { HeaderName.forwardedFor }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        // A class without a limit (all of them, with the limits off) costs no subject.
        guard let routeClass = RouteClass.of(method: request.method, path: request.uri.path),
            limiter.limits[routeClass] != nil, let subject = subject(of: request, context: context)
        else { return try await next(request, context) }
        switch limiter.admit(routeClass, for: subject, now: now()) {
        case .allowed:
            break
        case .untracked:
            Counter(label: Self.untrackedMetric, dimensions: [("class", routeClass.rawValue)]).increment()
        case .limited(let retryAfter, let limit):
            Counter(label: Self.refusedMetric, dimensions: [("class", routeClass.rawValue), ("key", key.rawValue)])
                .increment()
            let seconds = max(1, Int((Double(retryAfter.nanoseconds) / 1e9).rounded(.up)))
            throw ServiceError(
                .rateLimited,
                "too many \(routeClass.rawValue) requests from this \(key == .address ? "address" : "account") "
                    + "(limit \(limit)); try again in \(seconds) s",
                details: [
                    "retryAfterSeconds": .number(Double(seconds)), "routeClass": .string(routeClass.rawValue),
                    "limit": .string(limit.description),
                ])
        }
        return try await next(request, context)
    }

    private func subject(of request: Request, context: Context) -> RateLimiter.Subject? {
        switch key {
        case .account:
            return RequestScope.current?.actor.map { .account($0.userId) }
        case .address:
            let peer = context.remoteAddress.flatMap { IPAddress($0) }
            let forwarded = request.headers[values: Self.forwardedFor]
            return resolver.client(peer: peer, forwardedFor: forwarded).map { .address($0.limitKey) }
        }
    }
}
