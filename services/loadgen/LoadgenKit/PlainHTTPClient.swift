import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The load generator's HTTP/1.1 client for plain `http://`: kept-alive connections, one request
/// at a time on each (a new connection when none is idle), the whole response collected.
///
/// The load generator must not eat the machine it measures. AsyncHTTPClient, with its request
/// state machines, connection-pool bookkeeping and per-request tasks, cost about 200-350 µs of
/// CPU per request here; this client writes the request and reads the answer on the
/// connection's event loop and resumes the caller once. No redirects, no TLS (GatewayHTTP
/// keeps AsyncHTTPClient for `https://`), no `Expect: 100-continue`.
final class PlainHTTPClient: Sendable {
    /// One answer.
    struct Answer: Sendable {
        let status: Int
        let body: ByteBuffer
        /// The response's header fields.
        var headers = HTTPHeaders()
    }

    /// What failed, for the caller's tally (the status is then 0).
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private struct Connection: Sendable {
        let channel: any Channel
        let collector: Collector
    }

    let host: String
    let port: Int
    private let group: any EventLoopGroup
    private let idle = Mutex<[Connection]>([])
    /// Idle connections kept at most; more are closed when their answer is in.
    static let idleLimit = 4_096

    init(host: String, port: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.host = host
        self.port = port
        self.group = group
    }

    /// Sends one request and collects its answer, at most `timeout`.
    func execute(
        method: HTTPMethod, path: String, headers: [(String, String)], body: ByteBuffer?, timeout: TimeAmount
    ) async throws -> Answer {
        let connection = try await take()
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "Host", value: "\(host):\(port)")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if let body {
            head.headers.add(name: "Content-Length", value: String(body.readableBytes))
        } else if method == .POST || method == .PUT || method == .PATCH {
            head.headers.add(name: "Content-Length", value: "0")
        }
        let channel = connection.channel
        let request = head
        let promise = channel.eventLoop.makePromise(of: Collector.Response.self)
        let collector = connection.collector
        channel.eventLoop.execute {
            collector.expect(promise, on: channel, timeout: timeout)
            channel.write(HTTPClientRequestPart.head(request), promise: nil)
            if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil) }
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        }
        let response = try await promise.futureResult.get()
        if response.keepAlive && channel.isActive {
            let kept = idle.withLock { idle in
                guard idle.count < Self.idleLimit else { return false }
                idle.append(connection)
                return true
            }
            if !kept { channel.close(promise: nil) }
        } else {
            channel.close(promise: nil)
        }
        return Answer(status: response.status, body: response.body, headers: response.headers)
    }

    /// Closes every idle connection.
    func shutdown() {
        let all = idle.withLock { idle in
            defer { idle.removeAll() }
            return idle
        }
        for connection in all { connection.channel.close(promise: nil) }
    }

    private func take() async throws -> Connection {
        while let connection = idle.withLock({ $0.popLast() }) {
            if connection.channel.isActive { return connection }
        }
        let collector = Collector()
        let bootstrap = ClientBootstrap(group: group)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(collector)
                }
            }
        let channel = try await bootstrap.connect(host: host, port: port).get()
        return Connection(channel: channel, collector: collector)
    }

    /// Collects one response at a time into the promise of the request in flight. Its state is
    /// touched only on the connection's event loop.
    final class Collector: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPClientResponsePart

        struct Response: Sendable {
            let status: Int
            let body: ByteBuffer
            let keepAlive: Bool
            var headers = HTTPHeaders()
        }

        private var pending: EventLoopPromise<Response>?
        private var timer: Scheduled<Void>?
        private var status = 0
        private var keepAlive = true
        private var body: ByteBuffer?
        private var headers = HTTPHeaders()

        /// The answer to the request about to be written goes to `promise`; after `timeout`
        /// without one, it fails and the connection closes.
        func expect(_ promise: EventLoopPromise<Response>, on channel: any Channel, timeout: TimeAmount) {
            pending = promise
            status = 0
            body = nil
            timer = channel.eventLoop.scheduleTask(in: timeout) { [weak self] in
                self?.fail(Failure(description: "no answer within \(timeout)"))
                channel.close(promise: nil)
            }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                status = Int(head.status.code)
                keepAlive = head.isKeepAlive
                headers = head.headers
            case .body(var part):
                if body == nil { body = part } else { body!.writeBuffer(&part) }
            case .end:
                timer?.cancel()
                timer = nil
                let promise = pending
                pending = nil
                promise?.succeed(
                    Response(status: status, body: body ?? ByteBuffer(), keepAlive: keepAlive, headers: headers))
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            fail(error)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            fail(Failure(description: "the connection closed before the answer was complete"))
            context.fireChannelInactive()
        }

        private func fail(_ error: any Error) {
            timer?.cancel()
            timer = nil
            let promise = pending
            pending = nil
            promise?.fail(error)
        }
    }
}
