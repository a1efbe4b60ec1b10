import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

// BackplaneClient: the Swift client of the public API, generated at build time
// (swift-openapi-generator, `types` and `client`) from the same `openapi.yaml` the gateway is
// generated from and serves (`openapi.yaml` here is a link to it), so a client and the server
// cannot disagree about a path, a field or a status. This is what an app imports:
//
//     let client = Client(
//         serverURL: URL(string: "https://api.example.org")!, accessToken: { await session.accessToken })
//     let me = try await client.getMe().ok.body.json
//
// That client sends its requests with URLSession; `Client(serverURL:transport:middlewares:)`
// takes any other transport (swift-openapi-async-http-client's, a test's own).
// Dates are RFC 3339; the enums that may grow (`Error.code`, order states, notification kinds)
// decode values this build does not know as plain strings.

extension Client {
    /// A client of the API at `serverURL` that sends the access token `accessToken` returns
    /// (`BearerToken`) with every request, over `transport`: URLSession's shared session unless
    /// given another.
    public init(
        serverURL: URL, transport: any ClientTransport = URLSessionTransport(),
        accessToken: @escaping @Sendable () async throws -> String?
    ) {
        self.init(serverURL: serverURL, transport: transport, middlewares: [BearerToken(accessToken)])
    }
}

/// Sends `Authorization: Bearer <token>` on every request that has no `Authorization` header yet;
/// `token` is asked per request, so a refreshed access token is used as soon as it exists.
public struct BearerToken: ClientMiddleware {
    let token: @Sendable () async throws -> String?

    /// A middleware that asks `token` for the access token before each request (nil: send none).
    public init(_ token: @escaping @Sendable () async throws -> String?) { self.token = token }

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if request.headerFields[.authorization] == nil, let token = try await token() {
            request.headerFields[.authorization] = "Bearer \(token)"
        }
        return try await next(request, body, baseURL)
    }
}
