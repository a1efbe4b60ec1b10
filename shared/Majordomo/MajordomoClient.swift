import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// What ``BusClient`` needs from an MDP client.
public protocol MajordomoRequester: Sendable {
    /// Sends `body` to `service` and waits for its reply body, at most `timeout`.
    ///
    /// - Throws: ``MajordomoError`` with `unavailable` when the broker cannot be reached or lost
    ///   the request, `deadlineExceeded` when no reply came in time, `shutdown` when the client
    ///   is stopping; `CancellationError` when the calling task is cancelled.
    func request(service: String, body: [Frame], timeout: Duration) async throws -> [Frame]
}

/// An MDP client speaking ZMTP 3.1 as a DEALER on SwiftNIO event loops: one connection to the
/// broker per event loop, requests spread over them in turn. It reconnects by itself
/// (``BrokerConnection``). A request made while its connection is down waits for it until its
/// deadline (then `unavailable`); one sent on a connection that is then lost fails at once with
/// `unavailable`, as the broker keeps nothing across a restart.
public final class MajordomoClient: MajordomoRequester, Sendable {
    /// Where the broker listens: `tcp://HOST:PORT`, the host a name, IPv4 or `[IPv6]`.
    public struct Endpoint: Sendable, Equatable, CustomStringConvertible {
        public let host: String
        public let port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// Nil for anything but `tcp://HOST:PORT`.
        public init?(_ text: String) {
            guard text.hasPrefix("tcp://") else { return nil }
            let address = text.dropFirst("tcp://".count)
            guard let colon = address.lastIndex(of: ":") else { return nil }
            var host = address[..<colon]
            if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
            guard !host.isEmpty, host != "*", let port = Int(address[address.index(after: colon)...]),
                (1...65535).contains(port)
            else { return nil }
            self.init(host: String(host), port: port)
        }

        public var description: String { "tcp://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
    }

    /// The endpoint text this client was made with.
    public let endpoint: String
    private let links: [BrokerLink]
    private let nextLink = Atomic<UInt>(0)
    private let nextTag = Atomic<UInt64>(1)
    private let started = Atomic<Bool>(false)
    private let lifecycle = Mutex<(stopped: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    /// A client with one connection per event loop of `eventLoopGroup`, once ``run()`` runs; nil
    /// when `endpoint` does not parse.
    public convenience init?(
        endpoint: String, eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger
    ) {
        guard let target = Endpoint(endpoint) else { return nil }
        self.init(target, eventLoopGroup: eventLoopGroup, logger: logger)
    }

    /// A client for an endpoint parsed already.
    public init(
        _ endpoint: Endpoint, eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger
    ) {
        self.endpoint = endpoint.description
        var links: [BrokerLink] = []
        for eventLoop in eventLoopGroup.makeIterator() {
            links.append(
                BrokerLink(eventLoop: eventLoop, target: endpoint, endpoint: endpoint.description, logger: logger))
        }
        self.links = links
    }

    /// Whether at least one of its connections to the broker is up (handshake done) right now.
    public var isConnected: Bool { links.contains { $0.isReady.load(ordering: .relaxed) } }

    /// Sends `body` to `service` and waits for its reply body, at most `timeout`.
    public func request(service: String, body: [Frame], timeout: Duration) async throws -> [Frame] {
        let tag = nextTag.add(1, ordering: .relaxed).oldValue
        let deadline = Monotonic.milliseconds() + timeout.wholeMilliseconds
        let link = links[Int(nextLink.add(1, ordering: .relaxed).oldValue % UInt(links.count))]
        let message = Self.encode(tag: tag, service: service, body: body)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard !Task.isCancelled else { return continuation.resume(throwing: CancellationError()) }
                link.eventLoop.execute {
                    link.start(
                        tag: tag, message: message, deadline: deadline, service: service, continuation: continuation)
                }
            }
        } onCancel: {
            link.eventLoop.execute { link.cancel(tag: tag) }
        }
    }

    /// Keeps connected until graceful shutdown, cancellation or ``stop()``; then pending requests
    /// fail with `shutdown`.
    public func run() async throws {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else {
            preconditionFailure("MajordomoClient.run() called twice")
        }
        for link in links { link.eventLoop.execute { link.connect() } }
        await withTaskCancellationOrGracefulShutdownHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let stoppedAlready = lifecycle.withLock { state in
                    if !state.stopped { state.waiter = continuation }
                    return state.stopped
                }
                if stoppedAlready { continuation.resume() }
            }
        } onCancelOrGracefulShutdown: {
            self.stop()
        }
        for link in links {
            try? await link.eventLoop.flatSubmit { link.shutdown() }.get()
        }
    }

    /// Stops the client; ``run()`` returns soon after.
    public func stop() {
        let waiter = lifecycle.withLock { state in
            state.stopped = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// One request as ZMTP frames: `[tag][empty]["MDPC01"][service][body...]`.
    static func encode(tag: UInt64, service: String, body: [Frame]) -> ByteBuffer {
        let serviceCount = service.utf8.count
        var size = 10 + 2 + 8 + ZMTPWire.headerSize(serviceCount) + serviceCount
        for frame in body { size += ZMTPWire.headerSize(frame.count) + frame.count }
        var buffer = ByteBufferAllocator().buffer(capacity: size)
        var service = service
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { memory in
            var out = ZMTPFrameWriter(memory)
            withUnsafeBytes(of: tag.littleEndian) { out.frame($0, more: true) }
            out.emptyFrame(more: true)
            out.frame(MDP.clientHeader, more: true)
            service.withUTF8 { out.frame(UnsafeRawBufferPointer($0), more: !body.isEmpty) }
            for index in body.indices { out.frame(body[index], more: index < body.count - 1) }
            return out.count
        }
        return buffer
    }
}

extension MajordomoClient: Service {}

/// One connection to the broker and the requests on it, touched only on ``eventLoop``.
final class BrokerLink: BrokerConnection, @unchecked Sendable {
    private struct Pending {
        let continuation: CheckedContinuation<[Frame], any Error>
        let deadline: Int64
        let service: String
        var sent: Bool
    }

    /// The connection is up and carries requests (read from any thread).
    let isReady = Atomic<Bool>(false)
    private let endpoint: String
    private var pending: [UInt64: Pending] = [:]
    /// Requests waiting for the connection, in the order they came.
    private var held: [(tag: UInt64, message: ByteBuffer)] = []
    private var watchdog: Scheduled<Void>?
    private var watchdogAt = Int64.max
    private var flushQueued = false

    init(eventLoop: any EventLoop, target: MajordomoClient.Endpoint, endpoint: String, logger: Logger) {
        self.endpoint = endpoint
        super.init(eventLoop: eventLoop, target: target, logger: logger, metadata: [:])
    }

    // MARK: Requests

    func start(
        tag: UInt64, message: ByteBuffer, deadline: Int64, service: String,
        continuation: CheckedContinuation<[Frame], any Error>
    ) {
        if stopped {
            return continuation.resume(throwing: MajordomoError(.shutdown, "the MDP client is shutting down"))
        }
        pending[tag] = Pending(continuation: continuation, deadline: deadline, service: service, sent: channel != nil)
        arm(deadline)
        if let channel {
            channel.write(message, promise: nil)
            queueFlush()
        } else {
            held.append((tag, message))
        }
    }

    func cancel(tag: UInt64) {
        guard let cancelled = pending.removeValue(forKey: tag) else { return }
        if !cancelled.sent { held.removeAll { $0.tag == tag } }
        cancelled.continuation.resume(throwing: CancellationError())
    }

    /// Every request written in this pass of the loop leaves in one flush.
    private func queueFlush() {
        guard !flushQueued else { return }
        flushQueued = true
        eventLoop.execute { [self] in
            flushQueued = false
            channel?.flush()
        }
    }

    /// A whole message from the broker: `[tag][empty]["MDPC01"][service][body...]`.
    override func received(_ frames: [Frame], on channel: any Channel) {
        guard frames.count >= 4, frames[0].count == 8, frames[1].isEmpty, frames[2] == MDP.clientHeader else {
            logger.debug("dropped a malformed reply from the broker", metadata: ["frames": "\(frames.count)"])
            return
        }
        let tag = frames[0].withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        pending.removeValue(forKey: tag)?.continuation.resume(returning: Array(frames[4...]))
    }

    /// Fails the requests whose deadline has passed, and sets the timer for the next one.
    private func arm(_ deadline: Int64) {
        guard deadline < watchdogAt else { return }
        watchdog?.cancel()
        watchdogAt = deadline
        let delay = max(0, deadline - Monotonic.milliseconds())
        watchdog = eventLoop.scheduleTask(in: .milliseconds(delay)) { [self] in expire() }
    }

    private func expire() {
        watchdog = nil
        watchdogAt = .max
        let now = Monotonic.milliseconds()
        var due: [UInt64] = []
        var nearest = Int64.max
        for (tag, request) in pending {
            if request.deadline <= now { due.append(tag) } else { nearest = min(nearest, request.deadline) }
        }
        if !due.isEmpty {
            let dueTags = Set(due)
            held.removeAll { dueTags.contains($0.tag) }
            for tag in due {
                guard let request = pending.removeValue(forKey: tag) else { continue }
                request.continuation.resume(
                    throwing: channel != nil
                        ? MajordomoError(.deadlineExceeded, "no reply from '\(request.service)' before the deadline")
                        : MajordomoError(.unavailable, "the broker at \(endpoint) is not reachable"))
            }
        }
        if nearest != .max { arm(nearest) }
    }

    // MARK: The connection

    /// The broker's READY: the connection carries requests from now on.
    override func connected(_ channel: any Channel, afterOutage: Bool) {
        isReady.store(true, ordering: .relaxed)
        if afterOutage { logger.info("connected to the broker", metadata: metadata) }
        guard !held.isEmpty else { return }
        for (tag, message) in held where pending[tag] != nil {
            channel.write(message, promise: nil)
            pending[tag]?.sent = true
        }
        held.removeAll()
        channel.flush()
    }

    /// Requests sent on a lost connection fail at once: the broker keeps nothing across a restart.
    override func lost(_ channel: any Channel, wasReady: Bool) -> Bool {
        guard wasReady else { return true }
        isReady.store(false, ordering: .relaxed)
        let lost = pending.filter(\.value.sent)
        for tag in lost.keys { pending.removeValue(forKey: tag) }
        logger.warning(
            "lost the connection to the broker; reconnecting",
            metadata: metadata.merging(["requestsLost": "\(lost.count)"]) { $1 })
        for request in lost.values {
            request.continuation.resume(
                throwing: MajordomoError(.unavailable, "lost the connection to the broker at \(endpoint)"))
        }
        return true
    }

    /// Stops for good: closes the connection and fails what is pending with `shutdown`.
    func shutdown() -> EventLoopFuture<Void> {
        stopped = true
        isReady.store(false, ordering: .relaxed)
        watchdog?.cancel()
        watchdog = nil
        let all = pending
        pending = [:]
        held = []
        for request in all.values {
            request.continuation.resume(throwing: MajordomoError(.shutdown, "the MDP client stopped"))
        }
        guard let live else { return eventLoop.makeSucceededVoidFuture() }
        return live.close().recover { _ in }
    }
}
