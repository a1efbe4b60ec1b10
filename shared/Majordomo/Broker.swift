import CZeroMQ
import Logging
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// The Majordomo broker (RFC 7 with RFC 8's MMI) plus the event proxy (XSUB ▶ XPUB), on one
/// dedicated thread.
///
/// Sockets are bound in `init`, so bind errors surface at once and wildcard ports (`tcp://*:*`)
/// are resolved in ``endpoint`` before ``run()`` starts the loop.
public final class Broker: Sendable {
    /// The resolved MDP endpoint clients and workers connect to.
    public let endpoint: String
    /// The resolved endpoint event publishers connect to, when the proxy runs.
    public let eventsPublishEndpoint: String?
    /// The resolved endpoint event subscribers connect to, when the proxy runs.
    public let eventsSubscribeEndpoint: String?
    /// The settings it runs with.
    public let configuration: BrokerConfiguration

    private let sockets: Sockets
    private let wake = WakeSignal()
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let counters = Mutex(BrokerStatistics())
    /// Per-service figures, copied by the loop only when asked (``serviceFigures()``), so the
    /// request path never pays for them.
    private let figures = Mutex<(generation: Int, services: [BrokerServiceFigures])>((0, []))
    private let figuresWanted = Atomic<Bool>(false)
    private let cpuNanoseconds = Atomic<Int64>(0)
    private let logger: Logger

    /// What serves the MDP endpoint.
    private enum Front {
        /// The broker's thread speaks ZMTP itself: no hand-off to libzmq's I/O thread and back.
        case zmtp(ZMTPRouter)
        case libzmq(Socket)
    }

    /// The sockets, bound in `init` and from then on used only by the thread of ``run()``
    /// (`started` guarantees a single run); thread start is the full memory barrier libzmq
    /// requires when a socket changes threads.
    private final class Sockets: @unchecked Sendable {
        let front: Front
        let xsub: Socket?
        let xpub: Socket?
        init(front: Front, xsub: Socket?, xpub: Socket?) {
            self.front = front
            self.xsub = xsub
            self.xpub = xpub
        }
        func close() {
            switch front {
            case .zmtp(let router): router.close()
            case .libzmq(let router): router.close()
            }
            xsub?.close()
            xpub?.close()
        }
    }

    /// Binds the broker's sockets.
    public init(configuration: BrokerConfiguration, context: Context, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        let front: Front
        switch configuration.engine.resolved(for: configuration.endpoint) {
        case .native, .automatic:
            let router = try ZMTPRouter(bind: configuration.endpoint)
            endpoint = router.endpoint
            front = .zmtp(router)
        case .libzmq:
            let router = try context.socket(.router)
            try router.setOption(ZMQ_ROUTER_MANDATORY, 1)
            try router.setHighWaterMarks(send: 0, receive: 0)
            try router.bind(configuration.endpoint)
            endpoint = try router.lastEndpoint()
            front = .libzmq(router)
        }
        var xsub: Socket?
        var xpub: Socket?
        if let publish = configuration.eventsPublishEndpoint, let subscribe = configuration.eventsSubscribeEndpoint {
            let inbound = try context.socket(.xsub)
            try inbound.bind(publish)
            let outbound = try context.socket(.xpub)
            try outbound.bind(subscribe)
            xsub = inbound
            xpub = outbound
        }
        eventsPublishEndpoint = try xsub?.lastEndpoint()
        eventsSubscribeEndpoint = try xpub?.lastEndpoint()
        sockets = Sockets(front: front, xsub: xsub, xpub: xpub)
    }

    /// Counters as of the last loop iteration.
    public var statistics: BrokerStatistics { counters.withLock { $0 } }

    /// CPU time the broker's thread used, as of when ``run()`` returned: with
    /// ``BrokerStatistics/replies`` it gives the broker's cost per round trip.
    public var threadCPUTime: Duration { .nanoseconds(cpuNanoseconds.load(ordering: .acquiring)) }

    /// Whether the loop is running (started and not stopped).
    public var isRunning: Bool { started.load(ordering: .acquiring) && !stopping.load(ordering: .acquiring) }

    /// Each service's queue, workers and accepted requests, copied by the broker's loop on its
    /// next turn (waits up to `timeout`; returns the last copy if the loop does not answer).
    public func serviceFigures(timeout: Duration = .seconds(1)) async -> [BrokerServiceFigures] {
        let before = figures.withLock { $0.generation }
        figuresWanted.store(true, ordering: .releasing)
        wake.signal()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            let (generation, services) = figures.withLock { ($0.generation, $0.services) }
            if generation != before { return services }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return figures.withLock { $0.services }
    }

    /// Asks the loop to finish; ``run()`` then returns.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        wake.signal()
    }

    /// Runs the broker until ``stop()``, task cancellation or graceful shutdown.
    public func run() async throws {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else {
            preconditionFailure("Broker.run() called twice")
        }
        logger.info(
            "broker listening",
            metadata: [
                "endpoint": "\(endpoint)", "engine": "\(configuration.engine.resolved(for: configuration.endpoint))",
                "eventsPublish": "\(eventsPublishEndpoint ?? "-")",
                "eventsSubscribe": "\(eventsSubscribeEndpoint ?? "-")",
                "heartbeatMs": "\(configuration.heartbeat.intervalMs)",
                "liveness": "\(configuration.heartbeat.liveness)",
                "requestTimeoutMs": "\(configuration.requestTimeoutMs)",
            ])
        try await withTaskCancellationOrGracefulShutdownHandler {
            try await IOThread.run(name: "mdp-broker") { [self] in try loop() }
        } onCancelOrGracefulShutdown: {
            self.stop()
        }
        logger.info(
            "broker stopped", metadata: ["statistics": "\(statistics)", "threadCPUTime": "\(threadCPUTime)"])
    }

    private func loop() throws {
        let cpuAtStart = ThreadCPUClock.nanoseconds()
        defer {
            sockets.close()
            cpuNanoseconds.store(ThreadCPUClock.nanoseconds() - cpuAtStart, ordering: .releasing)
        }
        var core = BrokerCore(configuration: configuration, now: Monotonic.milliseconds())
        var poller = Poller()
        let frontSlot =
            switch sockets.front {
            case .zmtp(let router): poller.add(fileDescriptor: router.fileDescriptor)
            case .libzmq(let router): poller.add(router)
            }
        let wakeSlot = poller.add(fileDescriptor: wake.fileDescriptor)
        var proxySlots: (xsub: Int, xpub: Int)?
        if let xsub = sockets.xsub, let xpub = sockets.xpub {
            proxySlots = (poller.add(xsub), poller.add(xpub))
        }
        var out: [Outgoing] = []
        out.reserveCapacity(64)
        var sending: [Outgoing] = []
        sending.reserveCapacity(64)
        while !stopping.load(ordering: .acquiring) {
            let timeout = max(0, core.nextWakeAt() - Monotonic.milliseconds())
            try poller.poll(timeoutMs: Int(timeout))
            if poller.isReadable(wakeSlot) { wake.drain() }
            if poller.isReadable(frontSlot) {
                switch sockets.front {
                case .zmtp(let router):
                    router.process()
                    while let message = router.receive() {
                        core.handle(message, now: Monotonic.milliseconds(), into: &out)
                        try flush(&out, sending: &sending, core: &core)
                    }
                case .libzmq(let router):
                    for _ in 0..<10_000 {
                        // Frames stay libzmq's: bodies pass through without a copy.
                        guard let message = try router.receiveNative(dontWait: true) else { break }
                        core.handle(message, now: Monotonic.milliseconds(), into: &out)
                        try flush(&out, sending: &sending, core: &core)
                    }
                }
            }
            if let proxySlots, let xsub = sockets.xsub, let xpub = sockets.xpub {
                if poller.isReadable(proxySlots.xsub) { try forward(from: xsub, to: xpub) }
                if poller.isReadable(proxySlots.xpub) { try forward(from: xpub, to: xsub) }
            }
            let now = Monotonic.milliseconds()
            core.tick(now: now, into: &out)
            try flush(&out, sending: &sending, core: &core)
            if case .zmtp(let router) = sockets.front {
                router.flush()
                router.closeStalledHandshakes(nowMs: now)
            }
            let snapshot = core.statistics
            counters.withLock { $0 = snapshot }
            if figuresWanted.load(ordering: .acquiring) {
                figuresWanted.store(false, ordering: .releasing)
                let services = core.serviceFigures()
                figures.withLock { $0 = ($0.generation &+ 1, services) }
            }
        }
    }

    /// Sends what the core produced; a worker that vanished is reported back so its request moves on.
    /// `out` and `sending` trade buffers, so no message list is allocated per message.
    private func flush(_ out: inout [Outgoing], sending: inout [Outgoing], core: inout BrokerCore) throws {
        while !out.isEmpty {
            swap(&out, &sending)
            defer { sending.removeAll(keepingCapacity: true) }
            for message in sending {
                switch try deliver(message) {
                case .queued:
                    continue
                case .dropped:
                    logger.warning("dropped a message: peer is not keeping up")
                case .unreachable:
                    // A worker that vanished: its request goes to another one. A vanished client
                    // just loses its reply.
                    let head = message.head
                    if head.count > 2 && head[2] == MDP.workerHeader {
                        core.workerUnreachable(head[0], undelivered: head, now: Monotonic.milliseconds(), into: &out)
                    }
                }
            }
        }
    }

    private func deliver(_ message: Outgoing) throws(ZMQError) -> ZMTPRouter.SendResult {
        switch sockets.front {
        case .zmtp(let router):
            return message.withRoutingID { id in
                router.send(
                    to: PeerKey(id), headCount: message.headFramesAfterRoutingID, body: message.body,
                    head: { message.forEachHeadFrame($0) })
            }
        case .libzmq(let router):
            do {
                let sent = try router.send(
                    message.head, body: message.body, keepBody: message.keepsBody, dontWait: true)
                return sent ? .queued : .dropped
            } catch  where error.code == .unreachable {
                return .unreachable
            }
        }
    }

    private func forward(from source: Socket, to destination: Socket) throws {
        for _ in 0..<10_000 {
            guard let message = try source.receive(dontWait: true) else { return }
            _ = try destination.send(message, dontWait: true)
        }
    }
}

extension Broker: Service {}
