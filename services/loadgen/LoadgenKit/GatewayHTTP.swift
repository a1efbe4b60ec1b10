import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// HTTP to the gateway as an app talks to it: JSON bodies over a pool of kept-alive
/// HTTP/1.1 connections (one per request in flight, reused afterwards). Plain `http://` goes
/// through ``PlainHTTPClient`` (cheap on CPU: the load generator shares the machine it
/// measures); `https://` through AsyncHTTPClient.
struct GatewayHTTP: Sendable {
    /// The gateway, e.g. `http://127.0.0.1:8080`; the first when there are several.
    let baseURL: String
    /// Every gateway: requests go to them in turn (`--url A,B`, gateways without a balancer).
    let baseURLs: [String]
    private let client: HTTPClient?
    private let plain: [PlainHTTPClient]
    private let turn = Turn()

    /// `baseURL` may list several gateways separated by commas.
    init(baseURL: String) {
        baseURLs = baseURL.split(separator: ",").map { url in
            let url = url.trimmingCharacters(in: .whitespaces)
            return url.hasSuffix("/") ? String(url.dropLast()) : url
        }
        self.baseURL = baseURLs.first ?? baseURL
        let endpoints = baseURLs.compactMap(Self.plainEndpoint)
        if !endpoints.isEmpty && endpoints.count == baseURLs.count {
            plain = endpoints.map { PlainHTTPClient(host: $0.host, port: $0.port) }
            client = nil
        } else {
            plain = []
            client = HTTPClient(
                eventLoopGroupProvider: .singleton,
                configuration: .init(
                    connectionPool: .init(
                        idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 1024)))
        }
    }

    /// The index of the next gateway, in turn.
    private final class Turn: Sendable {
        private let counter = Atomic<Int>(0)
        func next(of count: Int) -> Int {
            count == 1 ? 0 : counter.wrappingAdd(1, ordering: .relaxed).oldValue % count
        }
    }

    /// Host and port of an `http://host[:port]` URL without a path; nil for anything else.
    static func plainEndpoint(_ url: String) -> (host: String, port: Int)? {
        guard url.hasPrefix("http://") else { return nil }
        let authority = url.dropFirst(7)
        guard !authority.isEmpty, !authority.contains("/"), !authority.contains("@") else { return nil }
        if authority.hasPrefix("[") {  // [IPv6]:port
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let host = String(authority[authority.index(after: authority.startIndex)..<close])
            let rest = authority[authority.index(after: close)...]
            if rest.isEmpty { return (host, 80) }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (1...65_535).contains(port) else { return nil }
            return (host, port)
        }
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return (String(parts[0]), 80)
        case 2:
            guard let port = Int(parts[1]), (1...65_535).contains(port), !parts[0].isEmpty else { return nil }
            return (String(parts[0]), port)
        default: return nil
        }
    }

    /// Runs `body` with a client that is shut down afterwards, also when `body` throws.
    static func with<T: Sendable>(baseURL: String, _ body: (GatewayHTTP) async throws -> T) async throws -> T {
        let http = GatewayHTTP(baseURL: baseURL)
        do {
            let result = try await body(http)
            try await http.shutdown()
            return result
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    private func shutdown() async throws {
        for client in plain { client.shutdown() }
        try await client?.shutdown()
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

    /// Counts the HTTP/1.1 bytes (request and status lines, header fields, bodies) of every
    /// request sent while it is set, e.g. over one app journey.
    final class ByteMeter: Sendable {
        let sent = Atomic<Int>(0)
        let received = Atomic<Int>(0)
        init() {}
    }

    /// The meter of the current task, if any.
    @TaskLocal static var meter: ByteMeter?

    private func send(
        _ method: HTTPMethod, _ path: String, body: (bytes: ByteBuffer, contentType: String)?, headers: [String: String]
    ) async throws -> (status: Int, body: String) {
        let answer = try await exchange(method, path, body: body, headers: headers)
        return (answer.status, answer.body)
    }

    /// A raw body with its media type (or none); status, body as text and response headers.
    func exchange(
        _ method: HTTPMethod, _ path: String, body: (bytes: ByteBuffer, contentType: String)?, headers: [String: String]
    ) async throws -> (status: Int, body: String, headers: HTTPHeaders) {
        let answer = try await transfer(method, path, body: body, headers: headers)
        if let meter = Self.meter {
            // Request line, Host, the fields, Content-Length (and Content-Type), blank line, body.
            var sent = "\(method.rawValue) \(path) HTTP/1.1\r\n".utf8.count + "Host: 127.0.0.1:8080\r\n".utf8.count + 2
            for (name, value) in headers { sent += name.utf8.count + value.utf8.count + 4 }
            if let body {
                sent += "Content-Type: \(body.contentType)\r\n".utf8.count
                sent += "Content-Length: \(body.bytes.readableBytes)\r\n".utf8.count + body.bytes.readableBytes
            }
            var received = "HTTP/1.1 200 OK\r\n".utf8.count + 2 + answer.bodyBytes
            for (name, value) in answer.headers { received += name.utf8.count + value.utf8.count + 4 }
            meter.sent.add(sent, ordering: .relaxed)
            meter.received.add(received, ordering: .relaxed)
        }
        return (answer.status, answer.body, answer.headers)
    }

    private func transfer(
        _ method: HTTPMethod, _ path: String, body: (bytes: ByteBuffer, contentType: String)?, headers: [String: String]
    ) async throws -> (status: Int, body: String, bodyBytes: Int, headers: HTTPHeaders) {
        if !plain.isEmpty {
            let plain = plain[turn.next(of: plain.count)]
            var fields = headers.map { ($0.key, $0.value) }
            if let client = SimulatedClient.address {
                fields.removeAll { $0.0.lowercased() == "x-forwarded-for" }
                fields.append(("X-Forwarded-For", client))
            }
            if let body { fields.append(("Content-Type", body.contentType)) }
            let answer = try await plain.execute(
                method: method, path: path, headers: fields, body: body?.bytes, timeout: .seconds(30))
            guard answer.body.readableBytes <= 1 << 20 else {
                throw PlainHTTPClient.Failure(description: "an answer of more than 1 MiB")
            }
            return (answer.status, String(buffer: answer.body), answer.body.readableBytes, answer.headers)
        }
        guard let client else { throw PlainHTTPClient.Failure(description: "no HTTP client") }
        var request = HTTPClientRequest(url: baseURLs[turn.next(of: baseURLs.count)] + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let client = SimulatedClient.address { request.headers.replaceOrAdd(name: "X-Forwarded-For", value: client) }
        if let body {
            request.headers.add(name: "Content-Type", value: body.contentType)
            request.body = .bytes(body.bytes)
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let collected = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: collected), collected.readableBytes, response.headers)
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
