import HTTPTypes
import Hummingbird
import NIOCore

/// Gives the answers of the handlers generated from the OpenAPI document a body of one buffer.
///
/// The OpenAPI runtime hands Hummingbird each body as a stream of chunks, even a JSON document
/// it has already encoded whole. Hummingbird writes such a body part by part: the head, each
/// chunk and the end each cross to the connection's event loop and each leave in a `write` call
/// of their own. A body of one buffer goes out with its head in one `writev`, after one
/// hand-off. Bodies of known length up to ``limit`` are gathered here (the bytes are in memory
/// already); a stream of unknown length (`/v1/me/notifications/stream`) and a larger download are
/// left as they are.
struct OneBufferBodyMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The largest body gathered into one buffer.
    static var limit: Int { 256 * 1024 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response = try await next(request, context)
        guard let length = response.body.contentLength, length <= Self.limit else { return response }
        let gathered = Gathered(capacity: length)
        try await response.body.write(GatheringWriter(into: gathered))
        response.body = ResponseBody(byteBuffer: gathered.buffer)
        return response
    }

    /// The bytes written so far (the writer is consumed by the body, so they live here).
    final class Gathered {
        var buffer: ByteBuffer
        init(capacity: Int) { buffer = ByteBufferAllocator().buffer(capacity: capacity) }
    }

    struct GatheringWriter: ResponseBodyWriter {
        let into: Gathered

        mutating func write(_ buffer: ByteBuffer) async throws {
            var buffer = buffer
            into.buffer.writeBuffer(&buffer)
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
