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

    /// One answer: its status and body as bytes; the body as text and the header fields are
    /// made only when asked for (a route's body runs to kilobytes, and NavUP asks for neither).
    struct Reply: Sendable {
        let status: Int
        let bytes: ByteBuffer
        /// The plain client's head, its fields read when asked for; AsyncHTTPClient's fields.
        fileprivate let head: ResponseHead?
        fileprivate let fields: HTTPHeaders?

        var body: String { String(buffer: bytes) }
        var headers: HTTPHeaders { head?.headers ?? fields ?? [:] }

        /// Whether the body holds `text`'s bytes.
        func contains(_ text: String) -> Bool {
            let needle = Array(text.utf8)
            return ResponseHead.find(needle, in: bytes, from: bytes.readerIndex) != nil
        }
    }

    /// One request with a JSON body (or none); the status and the body as text.
    func send(_ method: HTTPMethod, _ path: String, json: String? = nil, headers: [String: String] = [:])
        async throws -> (status: Int, body: String)
    {
        let reply = try await call(method, path, json: json, headers: headers)
        return (reply.status, reply.body)
    }

    /// One request with a JSON body (or none), its answer as bytes (see ``Reply``): for the
    /// scenarios' steady traffic, which looks at the status and seldom at the body.
    func call(_ method: HTTPMethod, _ path: String, json: String? = nil, headers: [String: String] = [:])
        async throws -> Reply
    {
        try await transfer(method, path, body: json.map { (ByteBuffer(string: $0), "application/json") }, headers: headers)
    }

    /// A raw body (an image) with its media type.
    func upload(_ path: String, _ data: Data, contentType: String, headers: [String: String] = [:]) async throws -> (
        status: Int, body: String
    ) {
        let reply = try await transfer(.POST, path, body: (ByteBuffer(bytes: data), contentType), headers: headers)
        return (reply.status, reply.body)
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

    /// A raw body with its media type (or none); status, body as text and response headers.
    func exchange(
        _ method: HTTPMethod, _ path: String, body: (bytes: ByteBuffer, contentType: String)?, headers: [String: String]
    ) async throws -> (status: Int, body: String, headers: HTTPHeaders) {
        let reply = try await transfer(method, path, body: body, headers: headers)
        return (reply.status, reply.body, reply.headers)
    }

    /// Adds one exchange's bytes to the task's meter.
    private static func count(
        _ meter: ByteMeter, _ method: HTTPMethod, _ path: String, body: (bytes: ByteBuffer, contentType: String)?,
        headers: [String: String], reply: Reply
    ) {
        // Request line, Host, the fields, Content-Length (and Content-Type), blank line, body.
        var sent = "\(method.rawValue) \(path) HTTP/1.1\r\n".utf8.count + "Host: 127.0.0.1:8080\r\n".utf8.count + 2
        for (name, value) in headers { sent += name.utf8.count + value.utf8.count + 4 }
        if let body {
            sent += "Content-Type: \(body.contentType)\r\n".utf8.count
            sent += "Content-Length: \(body.bytes.readableBytes)\r\n".utf8.count + body.bytes.readableBytes
        }
        var received = "HTTP/1.1 200 OK\r\n".utf8.count + 2 + reply.bytes.readableBytes
        for (name, value) in reply.headers { received += name.utf8.count + value.utf8.count + 4 }
        meter.sent.add(sent, ordering: .relaxed)
        meter.received.add(received, ordering: .relaxed)
    }

    private func transfer(
        _ method: HTTPMethod, _ path: String, body: (bytes: ByteBuffer, contentType: String)?, headers: [String: String]
    ) async throws -> Reply {
        let reply = try await transferUnmetered(method, path, body: body, headers: headers)
        if let meter = Self.meter { Self.count(meter, method, path, body: body, headers: headers, reply: reply) }
        return reply
    }

    private func transferUnmetered(
        _ method: HTTPMethod, _ path: String, body: (bytes: ByteBuffer, contentType: String)?, headers: [String: String]
    ) async throws -> Reply {
        if !plain.isEmpty {
            let plain = plain[turn.next(of: plain.count)]
            let client = SimulatedClient.address
            var fields: [(String, String)] = []
            if !headers.isEmpty || body != nil {
                fields.reserveCapacity(headers.count + 1)
                // The simulated client's address replaces one the scenario gave.
                for (name, value) in headers where client == nil || name.lowercased() != "x-forwarded-for" {
                    fields.append((name, value))
                }
                if let body { fields.append(("Content-Type", body.contentType)) }
            }
            let answer = try await plain.execute(
                method: method, path: path, headers: fields, body: body?.bytes, timeout: .seconds(30), client: client)
            guard answer.body.readableBytes <= 1 << 20 else {
                throw PlainHTTPClient.Failure(description: "an answer of more than 1 MiB")
            }
            return Reply(status: answer.status, bytes: answer.body, head: answer.head, fields: nil)
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
        return Reply(status: Int(response.status.code), bytes: collected, head: nil, fields: response.headers)
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
