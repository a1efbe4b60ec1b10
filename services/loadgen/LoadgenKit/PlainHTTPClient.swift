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
        /// The response's head, its fields read only when asked for.
        let head: ResponseHead

        /// The response's header fields.
        var headers: HTTPHeaders { head.headers }
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

    /// What follows the request target, through the `Host` field: the same for every request.
    private let versionAndHost: [UInt8]

    init(host: String, port: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.host = host
        self.port = port
        self.group = group
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        versionAndHost = Array(" HTTP/1.1\r\nHost: \(authority)\r\n".utf8)
    }

    /// Sends one request and collects its answer, at most `timeout`. `client`: the simulated
    /// client's address (``SimulatedClient``) for `X-Forwarded-For`, if any.
    func execute(
        method: HTTPMethod, path: String, headers: [(String, String)], body: ByteBuffer?, timeout: TimeAmount,
        client: String? = nil
    ) async throws -> Answer {
        let connection = try await take()
        let channel = connection.channel
        // The whole request in one buffer: one write, no encoder in the pipeline. Written piece
        // by piece: an interpolated line is a string made, and freed, for each request (one of
        // at most 15 bytes, as a number or an address, is held inline and costs nothing).
        var request = channel.allocator.buffer(capacity: 256 + path.utf8.count + (body?.readableBytes ?? 0))
        request.writeString(method.rawValue)
        request.writeInteger(UInt8(ascii: " "))
        request.writeString(path)
        request.writeBytes(versionAndHost)
        for (name, value) in headers {
            request.writeString(name)
            request.writeStaticString(": ")
            request.writeString(value)
            request.writeStaticString("\r\n")
        }
        if let client {
            request.writeStaticString("X-Forwarded-For: ")
            request.writeString(client)
            request.writeStaticString("\r\n")
        }
        if let body {
            request.writeStaticString("Content-Length: ")
            request.writeString(String(body.readableBytes))  // a small string: no allocation
            request.writeStaticString("\r\n\r\n")
            request.writeImmutableBuffer(body)
        } else if method == .POST || method == .PUT || method == .PATCH {
            request.writeStaticString("Content-Length: 0\r\n\r\n")
        } else {
            request.writeStaticString("\r\n")
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
        return Answer(status: response.head.status, body: response.body, head: response.head)
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
            let head: ResponseHead
            let body: ByteBuffer
            var keepAlive: Bool { head.keepAlive }
        }

        private var pending: EventLoopPromise<Response>?
        /// When the request in flight times out, and the timeout as given (for the message).
        private var deadline: NIODeadline?
        private var timeout = TimeAmount.zero
        /// One timer per connection, not per request: scheduling and cancelling a timer for each
        /// request (a heap insertion and removal, and an allocation) was a tenth of the load
        /// generator's CPU. The watchdog fires at the oldest deadline it knows of and then looks
        /// at the request in flight: past its deadline, it fails; otherwise it waits for that one.
        private var watchdog: Scheduled<Void>?
        private var bodiless = false
        private var received: ByteBuffer?
        private var head: ResponseHead?
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
            let deadline = NIODeadline.now() + timeout
            self.deadline = deadline
            self.timeout = timeout
            if watchdog == nil { arm(at: deadline, on: channel) }
        }

        private func arm(at deadline: NIODeadline, on channel: any Channel) {
            watchdog = channel.eventLoop.scheduleTask(deadline: deadline) { [weak self] in
                self?.watch(channel)
            }
        }

        private func watch(_ channel: any Channel) {
            watchdog = nil
            guard pending != nil, let deadline else { return }
            if deadline <= .now() {
                fail(Failure(description: "no answer within \(timeout)"))
                channel.close(promise: nil)
            } else {
                arm(at: deadline, on: channel)
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
                guard let end = ResponseHead.endOfHead(in: bytes, from: bytes.readerIndex) else {
                    guard bytes.readableBytes < 65_536 else { throw Failure(description: "a response head over 64 KiB") }
                    return false
                }
                let slice = bytes.readSlice(length: end - bytes.readerIndex)!
                do {
                    head = try ResponseHead(slice, bodiless: bodiless)
                } catch let malformed as ResponseHead.Malformed {
                    throw Failure(description: malformed.description)
                }
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
                guard let lineEnd = ResponseHead.find(ResponseHead.crlf, in: bytes, from: bytes.readerIndex) else {
                    return false
                }
                let sizeLine = bytes.getString(at: bytes.readerIndex, length: lineEnd.lowerBound - bytes.readerIndex) ?? ""
                guard let size = Int(sizeLine.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) ?? "", radix: 16)
                else { throw Failure(description: "a chunk size that is not hexadecimal") }
                if size == 0 {
                    // The last chunk, then trailer fields (none expected) and a blank line.
                    guard let end = ResponseHead.endOfHead(in: bytes, from: lineEnd.lowerBound) else { return false }
                    bytes.moveReaderIndex(to: end)
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

        private func complete() {
            guard let head else { return }
            deadline = nil
            let promise = pending
            pending = nil
            self.head = nil
            let answer = body
            body = ByteBuffer()
            promise?.succeed(Response(head: head, body: answer))
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            fail(error)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            if let head, case .close = head.framing { complete() }
            fail(Failure(description: "the connection closed before the answer was complete"))
            watchdog?.cancel()
            watchdog = nil
            context.fireChannelInactive()
        }

        private func fail(_ error: any Error) {
            deadline = nil
            let promise = pending
            pending = nil
            promise?.fail(error)
        }
    }
}
