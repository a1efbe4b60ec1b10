import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// HTTP to the gateway as an app talks to it: JSON bodies over a pool of kept-alive
/// HTTP/1.1 connections (one per request in flight, reused afterwards).
struct GatewayHTTP: Sendable {
    /// The gateway, e.g. `http://127.0.0.1:8080`.
    let baseURL: String
    private let client: HTTPClient

    init(baseURL: String) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(
                connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 1024)))
    }

    /// Runs `body` with a client that is shut down afterwards, also when `body` throws.
    static func with<T: Sendable>(baseURL: String, _ body: (GatewayHTTP) async throws -> T) async throws -> T {
        let http = GatewayHTTP(baseURL: baseURL)
        do {
            let result = try await body(http)
            try await http.client.shutdown()
            return result
        } catch {
            try? await http.client.shutdown()
            throw error
        }
    }

    /// One request with a JSON body (or none); the status and the body as text.
    func send(_ method: HTTPMethod, _ path: String, json: String? = nil, headers: [String: String] = [:])
        async throws -> (status: Int, body: String)
    {
        try await send(method, path, body: json.map { (ByteBuffer(string: $0), "application/json") }, headers: headers)
    }

    /// A raw body (an image) with its media type.
    func upload(_ path: String, _ data: Data, contentType: String, headers: [String: String] = [:]) async throws -> (
        status: Int, body: String
    ) {
        try await send(.POST, path, body: (ByteBuffer(bytes: data), contentType), headers: headers)
    }

    private func send(
        _ method: HTTPMethod, _ path: String, body: (bytes: ByteBuffer, contentType: String)?, headers: [String: String]
    ) async throws -> (status: Int, body: String) {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let client = SimulatedClient.address { request.headers.replaceOrAdd(name: "X-Forwarded-For", value: client) }
        if let body {
            request.headers.add(name: "Content-Type", value: body.contentType)
            request.body = .bytes(body.bytes)
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let collected = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: collected))
    }

    func post(_ path: String, _ json: String, headers: [String: String] = [:]) async throws -> (
        status: Int, body: String
    ) {
        try await send(.POST, path, json: json, headers: headers)
    }

    func get(_ path: String, headers: [String: String] = [:]) async throws -> (status: Int, body: String) {
        try await send(.GET, path, headers: headers)
    }
}
