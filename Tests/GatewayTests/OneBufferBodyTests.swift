import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import GatewayService

/// Bodies of known length are gathered into one buffer (written with their head in one go);
/// streams and large bodies pass as they are; the bytes and lengths are the same either way.
@Suite("gateway: one-buffer bodies")
struct OneBufferBodyTests {
    typealias Middleware = OneBufferBodyMiddleware<BasicRequestContext>

    static func router() -> Router<BasicRequestContext> {
        let router = Router()
        let group = router.group().add(middleware: Middleware())
        group.get("/chunks") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain"],
                body: ResponseBody(contentLength: 11) { writer in
                    try await writer.write(ByteBuffer(string: "hello"))
                    try await writer.write(contentsOf: [ByteBuffer(string: " wor"), ByteBuffer(string: "ld")])
                    try await writer.finish(nil)
                })
        }
        group.get("/stream") { _, _ in
            Response(
                status: .ok,
                body: ResponseBody(asyncSequence: [ByteBuffer(string: "a"), ByteBuffer(string: "b")].async))
        }
        group.get("/large") { _, _ in
            let size = Middleware.limit + 1
            return Response(
                status: .ok,
                body: ResponseBody(contentLength: size) { writer in
                    try await writer.write(ByteBuffer(repeating: UInt8(ascii: "x"), count: size))
                    try await writer.finish(nil)
                })
        }
        group.get("/empty") { _, _ in Response(status: .noContent) }
        return router
    }

    @Test("chunks of a known length arrive whole; a stream, a body past the limit and no body are unchanged")
    func bodies() async throws {
        try await Application(router: Self.router()).test(.live) { client in
            let chunks = try await client.execute(uri: "/chunks", method: .get)
            #expect(String(buffer: chunks.body) == "hello world")
            #expect(chunks.headers[.contentLength] == "11")
            #expect(chunks.headers[.contentType] == "text/plain")
            let stream = try await client.execute(uri: "/stream", method: .get)
            #expect(String(buffer: stream.body) == "ab")
            #expect(stream.headers[.contentLength] == nil)
            let large = try await client.execute(uri: "/large", method: .get)
            #expect(large.body.readableBytes == Middleware.limit + 1)
            let empty = try await client.execute(uri: "/empty", method: .get)
            #expect(empty.status == .noContent && empty.body.readableBytes == 0)
        }
    }
}

extension Array where Element: Sendable {
    /// The elements as an async sequence.
    fileprivate var async: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}
