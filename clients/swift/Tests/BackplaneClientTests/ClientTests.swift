import BackplaneClient
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The client without a server: what it sends and how a failed connection reaches the app. The
/// server's system tests (Tests/SystemTests/ClientJourneyTests.swift) drive it against the real
/// processes.
@Suite("BackplaneClient")
struct ClientTests {
    /// The requests a transport or a middleware's `next` was handed.
    actor Sent {
        var requests: [HTTPRequest] = []
        func add(_ request: HTTPRequest) { requests.append(request) }
    }

    /// A transport that records each request and answers none.
    struct Recording: ClientTransport {
        struct Unanswered: Error {}
        let sent = Sent()

        func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws
            -> (HTTPResponse, HTTPBody?)
        {
            await sent.add(request)
            throw Unanswered()
        }
    }

    @Test("BearerToken adds the token it is given, keeps an Authorization header already set, and sends none for nil")
    func bearerToken() async throws {
        func passed(_ request: HTTPRequest, token: String?) async throws -> HTTPRequest {
            let sent = Sent()
            _ = try await BearerToken { token }.intercept(
                request, body: nil, baseURL: try #require(URL(string: "http://127.0.0.1")), operationID: "getMe"
            ) { request, _, _ in
                await sent.add(request)
                return (HTTPResponse(status: .ok), nil)
            }
            return try #require(await sent.requests.first)
        }
        let plain = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/v1/me")
        #expect(try await passed(plain, token: "abc").headerFields[.authorization] == "Bearer abc")
        #expect(try await passed(plain, token: nil).headerFields[.authorization] == nil)
        var signed = plain
        signed.headerFields[.authorization] = "Bearer mine"
        #expect(try await passed(signed, token: "abc").headerFields[.authorization] == "Bearer mine")
    }

    @Test("Client(serverURL:transport:accessToken:) sends the documented request with the current token")
    func tokenReachesTheTransport() async throws {
        let transport = Recording()
        let client = Client(
            serverURL: try #require(URL(string: "http://127.0.0.1:8080")), transport: transport,
            accessToken: { "abc" })
        let error = try await #require(throws: ClientError.self) { try await client.getMe() }
        #expect(error.underlyingError is Recording.Unanswered)
        let sent = try #require(await transport.sent.requests.first)
        #expect(sent.method == .get)
        #expect(sent.path == "/v1/me")
        #expect(sent.headerFields[.authorization] == "Bearer abc")
    }

    @Test("Client(serverURL:accessToken:) sends over URLSession: a refused connection is a ClientError with its URLError")
    func urlSessionByDefault() async throws {
        // Port 1 of the loopback: nothing listens there, so the connection is refused at once.
        let client = Client(serverURL: try #require(URL(string: "http://127.0.0.1:1")), accessToken: { "abc" })
        let error = try await #require(throws: ClientError.self) { try await client.getHealthz() }
        #expect(error.operationID == "getHealthz")
        #expect(error.request?.path == "/healthz")
        let refused = try #require(error.underlyingError as? URLError, "\(error)")
        #expect(refused.code == .cannotConnectToHost, "\(refused)")
    }
}
