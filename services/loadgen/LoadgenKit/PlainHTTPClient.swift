import Foundation
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
    /// Idle connections by the event loop they live on: a request sent from a task running on
    /// a loop (``EventLoopTaskExecutor``) takes a connection of that loop, so writing the request,
    /// reading the answer and resuming the task happen on one thread, without a wake-up.
    private let idle = Mutex<[ObjectIdentifier: [Connection]]>([:])
    /// Idle connections kept at most per loop; more are closed when their answer is in.
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
        let channel = connection.channel
        // The whole request in one buffer: one write, no encoder in the pipeline.
        var request = channel.allocator.buffer(capacity: 256 + (body?.readableBytes ?? 0))
        request.writeString("\(method.rawValue) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\n")
        for (name, value) in headers { request.writeString("\(name): \(value)\r\n") }
        if let body {
            request.writeString("Content-Length: \(body.readableBytes)\r\n\r\n")
            request.writeImmutableBuffer(body)
        } else if method == .POST || method == .PUT || method == .PATCH {
            request.writeString("Content-Length: 0\r\n\r\n")
        } else {
            request.writeString("\r\n")
        }
        let bytes = request
        let promise = channel.eventLoop.makePromise(of: Collector.Response.self)
        let collector = connection.collector
        let bodiless = method == .HEAD
        let send: @Sendable () -> Void = {
            collector.expect(promise, on: channel, timeout: timeout, bodiless: bodiless)
            channel.writeAndFlush(bytes, promise: nil)
        }
        if channel.eventLoop.inEventLoop { send() } else { channel.eventLoop.execute(send) }
        let response = try await promise.futureResult.get()
        if response.keepAlive && channel.isActive {
            let key = ObjectIdentifier(channel.eventLoop)
            let kept = idle.withLock { idle in
                guard idle[key, default: []].count < Self.idleLimit else { return false }
                idle[key, default: []].append(connection)
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
            return Array(idle.values.joined())
        }
        for connection in all { connection.channel.close(promise: nil) }
    }

    private func take() async throws -> Connection {
        // The caller's own loop when it runs on one, else any.
        let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? group.next()
        let key = ObjectIdentifier(loop)
        while let connection = idle.withLock({ $0[key]?.popLast() }) {
            if connection.channel.isActive { return connection }
        }
        let collector = Collector()
        let bootstrap = ClientBootstrap(group: loop)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(collector)
                }
            }
        let channel = try await bootstrap.connect(host: host, port: port).get()
        return Connection(channel: channel, collector: collector)
    }

    /// Reads one response at a time from the connection's bytes into the promise of the request
    /// in flight: the status line and header fields, then a body of `Content-Length` bytes, in
    /// chunks (`Transfer-Encoding: chunked`), or up to the close. Its state is touched only on
    /// the connection's event loop.
    final class Collector: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer

        struct Response: Sendable {
            let status: Int
            let body: ByteBuffer
            let keepAlive: Bool
            var headers = HTTPHeaders()
        }

        /// How the body of the response being read ends.
        private enum Framing {
            case length(Int)
            case chunked
            case close
        }

        private struct Head {
            var status: Int
            var headers: HTTPHeaders
            var keepAlive: Bool
            var framing: Framing
        }

        private var pending: EventLoopPromise<Response>?
        private var timer: Scheduled<Void>?
        private var bodiless = false
        private var received: ByteBuffer?
        private var head: Head?
        private var body = ByteBuffer()

        /// The answer to the request about to be written goes to `promise`; after `timeout`
        /// without one, it fails and the connection closes. `bodiless`: a HEAD request.
        func expect(
            _ promise: EventLoopPromise<Response>, on channel: any Channel, timeout: TimeAmount, bodiless: Bool
        ) {
            pending = promise
            self.bodiless = bodiless
            head = nil
            body.clear()
            timer = channel.eventLoop.scheduleTask(in: timeout) { [weak self] in
                self?.fail(Failure(description: "no answer within \(timeout)"))
                channel.close(promise: nil)
            }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var part = unwrapInboundIn(data)
            if received == nil { received = part } else { received!.writeBuffer(&part) }
            do {
                while try step() {}
            } catch {
                fail(error)
                context.close(promise: nil)
            }
        }

        /// Reads what it can of the response from `received`; true when it should be called again.
        private func step() throws -> Bool {
            guard var bytes = received, bytes.readableBytes > 0 else { return false }
            // Bytes read are dropped, so a long-lived connection's buffer does not grow.
            defer { received = bytes.readableBytes == 0 ? nil : bytes }
            guard let current = head else {
                guard let end = bytes.readableBytesView.firstRange(of: Self.blankLine) else {
                    guard bytes.readableBytes < 65_536 else { throw Failure(description: "a response head over 64 KiB") }
                    return false
                }
                let length = end.upperBound - bytes.readerIndex
                let text = bytes.readString(length: length) ?? ""
                head = try Self.parseHead(text, bodiless: bodiless)
                if let head, head.status >= 100 && head.status < 200 {
                    self.head = nil  // an interim answer (100 Continue): the real one follows
                } else if case .length(0) = head?.framing {
                    complete()
                }
                return true
            }
            switch current.framing {
            case .length(let length):
                let missing = length - body.readableBytes
                if missing > 0 {
                    var slice = bytes.readSlice(length: min(missing, bytes.readableBytes))!
                    body.writeBuffer(&slice)
                }
                if body.readableBytes == length { complete() }
                return false
            case .chunked:
                guard let lineEnd = bytes.readableBytesView.firstRange(of: Self.lineEnd) else { return false }
                let sizeLine = bytes.getString(at: bytes.readerIndex, length: lineEnd.lowerBound - bytes.readerIndex) ?? ""
                guard let size = Int(sizeLine.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) ?? "", radix: 16)
                else { throw Failure(description: "a chunk size that is not hexadecimal") }
                if size == 0 {
                    // The last chunk, then trailer fields (none expected) and a blank line.
                    let rest = bytes.readableBytesView[lineEnd.lowerBound...]
                    guard let end = rest.firstRange(of: Self.blankLine) else { return false }
                    bytes.moveReaderIndex(to: end.upperBound)
                    complete()
                    return false
                }
                let chunkStart = lineEnd.upperBound
                guard bytes.writerIndex - chunkStart >= size + 2 else { return false }
                var chunk = bytes.getSlice(at: chunkStart, length: size)!
                body.writeBuffer(&chunk)
                bytes.moveReaderIndex(to: chunkStart + size + 2)
                return true
            case .close:
                body.writeBuffer(&bytes)
                return false
            }
        }

        private static let blankLine = Array("\r\n\r\n".utf8)
        private static let lineEnd = Array("\r\n".utf8)

        /// The status line and header fields (ending with the blank line).
        private static func parseHead(_ text: String, bodiless: Bool) throws -> Head {
            var lines = text.split(separator: "\r\n", omittingEmptySubsequences: true)[...]
            guard let statusLine = lines.popFirst(), statusLine.hasPrefix("HTTP/1."),
                statusLine.count >= 12, let status = Int(statusLine.dropFirst(9).prefix(3))
            else { throw Failure(description: "not an HTTP/1.x response") }
            var headers = HTTPHeaders()
            var length: Int?
            var chunked = false
            var keepAlive = statusLine.hasPrefix("HTTP/1.1")
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = line[..<colon].trimmingCharacters(in: .whitespaces)
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers.add(name: name, value: value)
                switch name.lowercased() {
                case "content-length": length = Int(value)
                case "transfer-encoding": chunked = value.lowercased().contains("chunked")
                case "connection":
                    let options = value.lowercased()
                    if options.contains("close") { keepAlive = false }
                    if options.contains("keep-alive") { keepAlive = true }
                default: break
                }
            }
            let framing: Framing
            if bodiless || status == 204 || status == 304 || (100..<200).contains(status) {
                framing = .length(0)
            } else if chunked {
                framing = .chunked
            } else if let length {
                framing = .length(length)
            } else {
                framing = .close
                keepAlive = false
            }
            return Head(status: status, headers: headers, keepAlive: keepAlive, framing: framing)
        }

        private func complete() {
            guard let head else { return }
            timer?.cancel()
            timer = nil
            let promise = pending
            pending = nil
            self.head = nil
            let answer = body
            body = ByteBuffer()
            promise?.succeed(Response(status: head.status, body: answer, keepAlive: head.keepAlive, headers: head.headers))
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            fail(error)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            if let head, case .close = head.framing { complete() }
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
