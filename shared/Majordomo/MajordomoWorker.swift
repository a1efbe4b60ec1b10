import CZeroMQ
import Glibc
import Logging
import NIOPosix
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// An MDP worker for one service, handling up to `concurrency` requests at a time over one
/// connection (``WorkerLink``). Its READY carries the credit frame (an extension, see
/// docs/design.md) when `concurrency` is above 1. On graceful shutdown it stops taking requests,
/// answers the ones in hand, sends DISCONNECT, and ``run()`` returns.
public final class MajordomoWorker: Sendable {
    /// Where each request's handler begins to run.
    public enum HandlerStart: String, Sendable, CaseIterable {
        /// A task on Swift's cooperative pool: safe for any handler. The requests of one read
        /// start from one pool task in turn; after 200 µs the rest get a task each.
        case taskPool = "pool"
        /// `Task.immediate` on the I/O thread until the handler's first real suspension; only for
        /// handlers that do little before they wait. Not children of ``run()``: a drain that
        /// times out leaves them to finish unanswered.
        case ioThread = "io-thread"
        /// ``MajordomoWorker/quickOperations`` as ``ioThread``, the rest as ``taskPool``.
        case quickOnIOThread = "auto"

        /// Whether a request for `operation` (the body's first frame) starts on the I/O thread.
        public func startsOnIOThread(_ operation: Frame?, quick: Set<Frame>) -> Bool {
            switch self {
            case .taskPool: false
            case .ioThread: true
            case .quickOnIOThread: operation.map(quick.contains) ?? false
            }
        }
    }

    /// Handles one request body and returns the reply body.
    public typealias Handler = @Sendable ([Frame]) async -> [Frame]

    struct Job: Sendable {
        let generation: Int
        let address: Frame
        let body: [Frame]
    }

    public let endpoint: String
    public let service: String
    public let concurrency: Int
    public let handlerStart: HandlerStart
    /// Operations (a body's first frame) answered from memory without waiting.
    public let quickOperations: Set<Frame>
    let heartbeat: HeartbeatSettings
    let drainTimeoutMs: Int64
    private let logger: Logger
    let handler: Handler
    private let draining = Atomic<Bool>(false)
    /// The connection, while ``run()`` runs.
    private let link = Mutex<WorkerLink?>(nil)
    /// When the broker last sent anything (monotonic ms; 0: never on this connection).
    let lastHeardMs = Atomic<Int64>(0)
    private let abandoned = Atomic<Int>(0)

    /// Replies of handlers that finished after the drain timed out: dropped, never sent.
    public var abandonedReplies: Int { abandoned.load(ordering: .relaxed) }

    func countAbandoned(_ replies: Int) {
        abandoned.add(replies, ordering: .relaxed)
    }

    /// Milliseconds since the broker last spoke to this worker on the current connection (nil:
    /// not yet); it is registered while this stays under ``brokerExpiryMs``.
    public var millisecondsSinceBrokerSpoke: Int64? {
        let heard = lastHeardMs.load(ordering: .relaxed)
        return heard == 0 ? nil : Monotonic.milliseconds() - heard
    }

    /// How long the broker may stay silent before the worker reconnects.
    public var brokerExpiryMs: Int64 { heartbeat.expiryMs }

    /// Creates a worker; it connects when ``run()`` starts.
    public init(
        endpoint: String, service: String, concurrency: Int = 8, handlerStart: HandlerStart = .taskPool,
        quickOperations: Set<String> = [],
        heartbeat: HeartbeatSettings = HeartbeatSettings(),
        drainTimeoutMs: Int64 = 30_000, logger: Logger, handler: @escaping Handler
    ) {
        precondition(!service.isEmpty && !service.hasPrefix(MDP.mmiPrefix), "invalid service name '\(service)'")
        self.endpoint = endpoint
        self.service = service
        self.concurrency = max(1, concurrency)
        self.handlerStart = handlerStart
        self.quickOperations = Set(quickOperations.map { Array($0.utf8) })
        self.heartbeat = heartbeat
        self.drainTimeoutMs = drainTimeoutMs
        self.logger = logger
        self.handler = handler
    }

    /// Starts draining: no new requests, finish the ones in hand, DISCONNECT, then return from ``run()``.
    public func drain() {
        draining.store(true, ordering: .releasing)
        // Under the lock: ``run()`` clears the link under it before it shuts its loop down.
        link.withLock { link in
            if let link { link.eventLoop.execute { link.startDrain() } }
        }
    }

    /// Runs until drained (graceful shutdown, cancellation or ``drain()``); the connection runs
    /// on an event loop of the worker's own and starts the handlers itself (``WorkerLink``).
    public func run() async throws {
        guard let target = MajordomoClient.Endpoint(endpoint) else {
            throw MajordomoError(.unavailable, "a worker needs a tcp://HOST:PORT broker endpoint, not \(endpoint)")
        }
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let (ended, lifetime) = AsyncStream.makeStream(of: Never.self)
        let link = WorkerLink(
            worker: self, eventLoop: loops.next(), target: target, logger: logger, lifetime: lifetime)
        let threadName = String("mdp-worker-\(service)".prefix(15))
        link.eventLoop.execute {
            backplane_set_thread_name(threadName)
            link.start()
        }
        self.link.withLock { $0 = link }
        if draining.load(ordering: .acquiring) { link.eventLoop.execute { link.startDrain() } }
        await withTaskCancellationOrGracefulShutdownHandler {
            for await _ in ended {}
        } onCancelOrGracefulShutdown: {
            self.drain()
        }
        try? await link.stoppedPromise.futureResult.get()
        self.link.withLock { $0 = nil }
        await link.quiesce()
        try? await loops.shutdownGracefully()
    }
}

extension MajordomoWorker: Service {}
