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
                let head = request[..<end.lowerBound]
                request = String(request[end.upperBound...])
                let path = head.split(separator: " ").dropFirst().first.map(String.init) ?? ""
                let answer = Array((PlainHTTPClientTests.answers[path] ?? "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n").utf8)
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
}
