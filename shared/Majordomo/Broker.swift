import Glibc
import Logging
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// The Majordomo broker (RFC 7 with RFC 8's MMI) on one thread. It binds in `init`: bind errors
/// surface at once, a wildcard port is resolved in ``endpoint``.
public final class Broker: Sendable {
    /// The MDP endpoint clients and workers connect to.
    public let endpoint: String
    public let configuration: BrokerConfiguration

    private let owned: Owned
    private let wake = WakeSignal()
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let counters = Mutex(BrokerStatistics())
    /// Per-service figures, copied by the loop only when asked (``serviceFigures()``).
    private let figures = Mutex<(generation: Int, services: [BrokerServiceFigures])>((0, []))
    private let figuresWanted = Atomic<Bool>(false)
    private let cpuNanoseconds = Atomic<Int64>(0)
    private let logger: Logger

    /// The router, used only by the thread of ``run()`` (`started` guarantees a single run).
    private struct Owned: @unchecked Sendable {
        let router: ZMTPRouter
    }

    /// Binds the broker's endpoint.
    public init(configuration: BrokerConfiguration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        let router = try ZMTPRouter(bind: configuration.endpoint)
        endpoint = router.endpoint
        owned = Owned(router: router)
    }

    /// Counters as of the last loop iteration.
    public var statistics: BrokerStatistics { counters.withLock { $0 } }

    /// CPU time the broker's thread used, as of when ``run()`` returned.
    public var threadCPUTime: Duration { .nanoseconds(cpuNanoseconds.load(ordering: .acquiring)) }

    /// Whether the loop is running (started and not stopped).
    public var isRunning: Bool { started.load(ordering: .acquiring) && !stopping.load(ordering: .acquiring) }

    /// Each service's queue, workers and accepted requests, as the loop copies them on its next
    /// turn (within `timeout`, else the last copy).
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
                "endpoint": "\(endpoint)",
                "heartbeatMs": "\(configuration.heartbeat.intervalMs)",
                "liveness": "\(configuration.heartbeat.liveness)",
                "requestTimeoutMs": "\(configuration.requestTimeoutMs)",
            ])
        try await withTaskCancellationOrGracefulShutdownHandler {
            try await IOThread.run(name: "mdp-broker") { [self] in loop() }
        } onCancelOrGracefulShutdown: {
            self.stop()
        }
        logger.info(
            "broker stopped", metadata: ["statistics": "\(statistics)", "threadCPUTime": "\(threadCPUTime)"])
    }

    private func loop() {
        let cpuAtStart = ThreadCPUClock.nanoseconds()
        defer {
            owned.router.close()
            cpuNanoseconds.store(ThreadCPUClock.nanoseconds() - cpuAtStart, ordering: .releasing)
        }
        var core = BrokerCore(configuration: configuration, now: Monotonic.milliseconds())
        let router = owned.router
        var watched = [
            pollfd(fd: router.fileDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake.fileDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        var out: [Outgoing] = []
        out.reserveCapacity(64)
        var sending: [Outgoing] = []
        sending.reserveCapacity(64)
        while !stopping.load(ordering: .acquiring) {
            let timeout = max(0, core.nextWakeAt() - Monotonic.milliseconds())
            // A signal cutting the wait short (EINTR) is only an early turn of the loop.
            if poll(&watched, 2, Int32(clamping: timeout)) <= 0 { watched[0].revents = 0; watched[1].revents = 0 }
            if watched[1].revents != 0 { wake.drain() }
            if watched[0].revents != 0 {
                router.process()
                while let message = router.receive() {
                    core.handle(message, now: Monotonic.milliseconds(), into: &out)
                    flush(&out, sending: &sending, core: &core)
                }
            }
            let now = Monotonic.milliseconds()
            core.tick(now: now, into: &out)
            flush(&out, sending: &sending, core: &core)
            router.flush()
            router.closeStalledHandshakes(nowMs: now)
            let snapshot = core.statistics
            counters.withLock { $0 = snapshot }
            if figuresWanted.load(ordering: .acquiring) {
                figuresWanted.store(false, ordering: .releasing)
                let services = core.serviceFigures()
                figures.withLock { $0 = ($0.generation &+ 1, services) }
            }
        }
    }

    /// Sends what the core produced; a vanished worker is reported back so its request moves on.
    private func flush(_ out: inout [Outgoing], sending: inout [Outgoing], core: inout BrokerCore) {
        while !out.isEmpty {
            swap(&out, &sending)
            defer { sending.removeAll(keepingCapacity: true) }
            for message in sending {
                switch deliver(message) {
                case .queued:
                    continue
                case .dropped:
                    logger.warning("dropped a message: peer is not keeping up")
                case .unreachable:
                    // A vanished client just loses its reply.
                    let head = message.head
                    if head.count > 2 && head[2] == MDP.workerHeader {
                        core.workerUnreachable(head[0], undelivered: head, now: Monotonic.milliseconds(), into: &out)
                    }
                }
            }
        }
    }

    private func deliver(_ message: Outgoing) -> ZMTPRouter.SendResult {
        message.withRoutingID { id in
            owned.router.send(
                to: PeerKey(id), headCount: message.headFramesAfterRoutingID, body: message.body,
                head: { message.forEachHeadFrame($0) })
        }
    }
}

extension Broker: Service {}
