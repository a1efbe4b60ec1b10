import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

@testable import LoadgenKit

/// The load generator's own HTTP/1.1 reader against a server that answers with fixed bytes, each
/// answer written in two pieces split mid-way (so the reader sees partial heads and bodies).
@Suite("loadgen: plain HTTP client")
struct PlainHTTPClientTests {
    /// Answers by path: a length-delimited body, a chunked one, a 204, one that ends at the close.
    static let answers: [String: String] = [
        "/length": "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Image-Id: img-1\r\n\r\nhello",
        "/chunked":
            "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\nLocation: /x\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n",
        "/empty": "HTTP/1.1 204 No Content\r\n\r\n",
        "/continue": "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok",
        "/close": "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\nuntil the close",
    ]

    final class Answerer: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        private var request = ""

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            request += String(buffer: unwrapInboundIn(data))
            while let end = request.range(of: "\r\n\r\n") {
                let head = String(request[..<end.lowerBound])
                // A body is skipped; until all of it is here, the request waits for more bytes.
                var length = 0
                if let field = head.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }) {
                    length = Int(field.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
                let afterHead = request[end.upperBound...].utf8
                guard afterHead.count >= length else { break }
                request = String(afterHead.dropFirst(length))!
                let path = head.split(separator: " ").dropFirst().first.map(String.init) ?? ""
                if path == "/silent" { continue }  // never answered
                // The request's head as it came, as the body: what the client wrote.
                let echo = "\(head)\r\n\r\n"
                let answer = Array(
                    (path.hasPrefix("/echo")
                        ? "HTTP/1.1 200 OK\r\nContent-Length: \(echo.utf8.count)\r\n\r\n\(echo)"
                        : PlainHTTPClientTests.answers[path] ?? "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n").utf8)
                let middle = answer.count / 2
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer[..<middle])), promise: nil)
                let rest = ByteBuffer(bytes: answer[middle...])
                let closes = path == "/close"
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: .milliseconds(5)) {
                    bound.value.writeAndFlush(self.wrapOutboundOut(rest)).whenComplete { _ in
                        if closes { bound.value.close(promise: nil) }
                    }
                }
            }
        }
    }

    @Test("lengths, chunks, a 204, an interim 100 and a close-delimited body are read; connections are kept and reused")
    func reads() async throws {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Answerer()) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let client = PlainHTTPClient(host: "127.0.0.1", port: server.localAddress!.port!)
        for _ in 0..<2 {
            let length = try await client.execute(method: .GET, path: "/length", headers: [], body: nil, timeout: .seconds(10))
            #expect(length.status == 200 && String(buffer: length.body) == "hello")
            #expect(length.headers.first(name: "X-Image-Id") == "img-1")
            let chunked = try await client.execute(
                method: .POST, path: "/chunked", headers: [("Content-Type", "text/plain")], body: ByteBuffer(string: "hi"),
                timeout: .seconds(10))
            #expect(chunked.status == 201 && String(buffer: chunked.body) == "hello world")
            #expect(chunked.headers.first(name: "Location") == "/x")
            let empty = try await client.execute(method: .DELETE, path: "/empty", headers: [], body: nil, timeout: .seconds(10))
            #expect(empty.status == 204 && empty.body.readableBytes == 0)
            let interim = try await client.execute(method: .GET, path: "/continue", headers: [], body: nil, timeout: .seconds(10))
            #expect(interim.status == 200 && String(buffer: interim.body) == "ok")
            let closed = try await client.execute(method: .GET, path: "/close", headers: [], body: nil, timeout: .seconds(10))
            #expect(closed.status == 503 && String(buffer: closed.body) == "until the close")
        }
        client.shutdown()
        try await server.close()
    }

    @Test("a request goes out as asked: request line, Host, the fields, the simulated client's address, the body's length")
    func requestBytes() async throws {
        let server = try await Self.server()
        let port = server.localAddress!.port!
        let (reply, plain) = try await GatewayHTTP.with(baseURL: "http://127.0.0.1:\(port)") { http in
            let reply = try await SimulatedClient.acting(as: 70_000) {
                try await http.call(
                    .POST, "/echo?x=1", json: #"{"a": 1}"#,
                    headers: ["X-Forwarded-For": "10.0.0.1", "Authorization": "Bearer t"])
            }
            // Outside any simulated client no address is sent; a GET has no length.
            return (reply, try await http.call(.GET, "/echo"))
        }
        try await server.close()
        #expect(reply.status == 200)
        let head = reply.body
        #expect(head.hasPrefix("POST /echo?x=1 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"))
        #expect(head.hasSuffix("\r\nContent-Length: 8\r\n\r\n"))
        // The simulated client's address replaces one the scenario gave.
        #expect(head.contains("\r\nX-Forwarded-For: 198.19.17.112\r\n") && !head.contains("10.0.0.1"))
        #expect(head.contains("\r\nAuthorization: Bearer t\r\n"))
        #expect(head.contains("\r\nContent-Type: application/json\r\n"))
        #expect(reply.contains("198.19.17.112") && !reply.contains("198.18."))
        #expect(reply.headers.first(name: "Content-Length") == "\(reply.bytes.readableBytes)")
        #expect(plain.body == "GET /echo HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
    }

    @Test("every simulated client's address and every body's length go out as their text")
    func addressesAndLengths() async throws {
        #expect(SimulatedClient.address(0) == "198.18.0.0")
        #expect(SimulatedClient.address(131_071) == "198.19.255.255")
        #expect(SimulatedClient.address(131_072) == "198.18.0.0")
        #expect(SimulatedClient.address(-1) == "198.19.255.255")
        let server = try await Self.server()
        let port = server.localAddress!.port!
        let heads = try await GatewayHTTP.with(baseURL: "http://127.0.0.1:\(port)") { http in
            var heads: [(client: Int, length: Int, head: String)] = []
            for (client, length) in [(0, 1), (1, 7), (255, 9), (256, 10), (65_535, 99), (65_536, 100), (70_000, 4_096), (131_071, 70_000)] {
                let reply = try await SimulatedClient.acting(as: client) {
                    try await http.call(.POST, "/echo", json: String(repeating: "1", count: length))
                }
                heads.append((client, length, reply.body))
            }
            return heads
        }
        try await server.close()
        for (client, length, head) in heads {
            #expect(head.contains("\r\nX-Forwarded-For: \(SimulatedClient.address(client))\r\n"), "client \(client)")
            #expect(head.hasSuffix("\r\nContent-Length: \(length)\r\n\r\n"), "length \(length)")
        }
    }

    /// Starts the fixed-answer server.
    static func server() async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Answerer()) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    @Test("a request without an answer fails after its timeout, also on a connection whose earlier requests were answered")
    func timesOut() async throws {
        let server = try await Self.server()
        let client = PlainHTTPClient(host: "127.0.0.1", port: server.localAddress!.port!)
        // Answered requests leave the connection's timer set for the first one's deadline; the
        // unanswered one after them must still fail, at its own deadline.
        for _ in 0..<3 {
            let answered = try await client.execute(
                method: .GET, path: "/length", headers: [], body: nil, timeout: .milliseconds(200))
            #expect(answered.status == 200)
        }
        await #expect {
            _ = try await client.execute(method: .GET, path: "/silent", headers: [], body: nil, timeout: .milliseconds(300))
        } throws: { error in
            (error as? PlainHTTPClient.Failure)?.description.hasPrefix("no answer within") == true
        }
        // The timed-out connection was closed; the next request gets a working one.
        let after = try await client.execute(method: .GET, path: "/length", headers: [], body: nil, timeout: .seconds(10))
        #expect(String(buffer: after.body) == "hello")
        client.shutdown()
        try await server.close()
    }

    @Test("a head is read from its bytes: status, framing, keep-alive and the fields as sent")
    func head() throws {
        func read(_ text: String, bodiless: Bool = false) throws -> ResponseHead {
            try ResponseHead(ByteBuffer(string: text), bodiless: bodiless)
        }
        let length = try read("HTTP/1.1 200 OK\r\ncontent-LENGTH:  12 \r\nX-Request-Id:\tabc\r\n\r\n")
        #expect(length.status == 200 && length.framing == .length(12) && length.keepAlive)
        #expect(length.headers.first(name: "x-request-id") == "abc")
        #expect(Array(length.headers.map(\.name)) == ["content-LENGTH", "X-Request-Id"])
        let chunked = try read("HTTP/1.1 201 Created\r\nTransfer-Encoding: gzip, Chunked\r\nContent-Length: 3\r\n\r\n")
        #expect(chunked.framing == .chunked)
        let closing = try read("HTTP/1.1 503 Service Unavailable\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n")
        #expect(!closing.keepAlive && closing.framing == .length(0))
        let old = try read("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\n")
        #expect(old.framing == .close && !old.keepAlive)
        let oldKept = try read("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 1\r\n\r\n")
        #expect(oldKept.keepAlive && oldKept.framing == .length(1))
        #expect(try read("HTTP/1.1 304 Not Modified\r\nContent-Length: 40\r\n\r\n").framing == .length(0))
        #expect(try read("HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n", bodiless: true).framing == .length(0))
        #expect(throws: ResponseHead.Malformed.self) { try read("HTTP/1.1 200 OK\r\nContent-Length: 4x\r\n\r\n") }
        #expect(throws: ResponseHead.Malformed.self) { try read("HTTP/2 200\r\n\r\n") }
        #expect(throws: ResponseHead.Malformed.self) { try read("HTTP/1.1 2x0 OK\r\n\r\n") }
        // The blank line is found across the bytes, and only from where the search starts.
        let bytes = ByteBuffer(string: "HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody\r\n\r\n")
        #expect(ResponseHead.endOfHead(in: bytes, from: 0) == 25)
        #expect(ResponseHead.endOfHead(in: bytes, from: 24) == 33)
        #expect(ResponseHead.endOfHead(in: ByteBuffer(string: "HTTP/1.1 200 OK\r\n\r"), from: 0) == nil)
    }
}

/// `loadgen get` against the fixed-answer server: closed and open loop count every answer, and
/// the load generator's own CPU time is measured.
@Suite("loadgen get")
struct GetBenchTests {
    /// Runs `loadgen get` for half a second on `path` of the fixed-answer server, set up by `configure`.
    static func run(_ path: String, _ configure: (inout GetBench) -> Void) async throws -> (GetBench, GetBench.Outcome) {
        let server = try await PlainHTTPClientTests.server()
        var bench = GetBench(url: "http://127.0.0.1:\(server.localAddress!.port!)\(path)", seconds: 0.5)
        configure(&bench)
        let configured = bench
        let outcome = try await withTaskExecutorPreference(EventLoopTaskExecutor(group: .singleton)) {
            try await configured.run()
        }
        try await server.close()
        return (bench, outcome)
    }

    @Test("closed loop: every connection's answers are counted, with the CPU they cost")
    func closedLoop() async throws {
        let (bench, outcome) = try await Self.run("/length") { bench in
            bench.connections = 4
            bench.warmup = 0.1
        }
        #expect(outcome.requests > 0 && outcome.errors == 0)
        #expect(outcome.recorder.count == outcome.requests)
        #expect(outcome.cpuSeconds > 0)
        let line = bench.line(outcome)
        #expect(line.contains("4 connections (closed loop)") && line.contains("non200 0") && line.contains("loadgen_cpu_us"))
    }

    @Test("open loop: requests due at the rate, answers other than 200 counted apart")
    func openLoop() async throws {
        let (bench, outcome) = try await Self.run("/missing") { bench in
            bench.rate = 100
            bench.warmup = 0
        }
        // The server answers 404 for this path: every request is an error, none is lost.
        #expect(outcome.requests > 0 && outcome.errors == outcome.requests)
        #expect(outcome.statuses.keys.sorted() == [404])
        #expect(bench.line(outcome).contains("100/s (open loop, at most 64 in flight)"))
    }

    @Test("the URL is split into endpoint and request target; others are refused by name")
    func urls() throws {
        let parts = try GetBench.split("http://127.0.0.1:8080/v1/currencies?x=1")
        #expect(parts.host == "127.0.0.1" && parts.port == 8080 && parts.target == "/v1/currencies?x=1")
        #expect(try GetBench.split("http://localhost").target == "/")
        #expect(throws: UsageError.self) { try GetBench.split("https://example.org/x") }
        #expect(throws: UsageError.self) { try GetBench.split("http://:80/x") }
    }
}
