import CZeroMQ
import Glibc
import Logging
import NIOPosix
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// An MDP worker process for one service, handling up to `concurrency` requests at a time.
///
/// It connects one DEALER socket and registers with READY. RFC 7 gives a worker one request at a
/// time; when `concurrency` is above 1 the READY carries an optional fifth frame, the worker's
/// credit (Backplane's extension, see docs/design.md), and our broker then keeps up to that many
/// requests in flight on this one connection. A broker that ignores the frame simply sends one
/// at a time. The worker heartbeats, and reconnects with a new socket when the broker goes
/// silent or says DISCONNECT (a broker restart). On graceful shutdown it stops taking requests,
/// finishes and answers the ones in hand, then sends DISCONNECT (the broker gives anything it
/// sent meanwhile to another worker), and ``run()`` returns.
///
/// Where a handler starts is ``HandlerStart``: on Swift's task pool (the default), or on the
/// worker's I/O thread up to its first suspension, which saves two thread hand-offs per request.
///
/// How it talks to the broker is ``Transport``: ZeroMQ's wire protocol spoken by the worker
/// itself on an event loop of its own (the default for `tcp://` and `ipc://`), or a libzmq DEALER
/// socket. The two behave the same to the broker and to the handlers.
public final class MajordomoWorker: Sendable {
    /// How the worker talks to the broker.
    public enum Transport: String, Sendable, CaseIterable {
        /// ``zmtp`` for `tcp://` and `ipc://` endpoints, ``libzmq`` for any other (`inproc://`).
        case auto
        /// ZMTP 3.1 spoken by the worker itself on a SwiftNIO event loop (its I/O thread): a
        /// request reaches its handler through one thread, not two. `tcp://` and `ipc://` only.
        case zmtp
        /// A libzmq DEALER socket, polled by the worker's I/O thread; libzmq's own I/O thread
        /// does the socket's reading and writing.
        case libzmq
    }

    /// Where each request's handler begins to run.
    public enum HandlerStart: String, Sendable, CaseIterable {
        /// A task on Swift's cooperative pool; the I/O thread only hands the request over. Safe
        /// for any handler, including ones that compute for a long time before they suspend.
        ///
        /// With the ZMTP transport the requests of one read go over together: one task on the
        /// pool starts them in turn, each until its first suspension, and after 200 µs of that
        /// gives each of the rest a task of its own. A handler that computes before it suspends
        /// holds up only the requests read with it and queued behind it, never the I/O thread or
        /// a later read. (With libzmq every request is a task of its own.)
        case taskPool = "pool"
        /// `Task.immediate` on the worker's I/O thread: the handler runs there until its first
        /// `await` that really suspends (a database query, a call to another service), and
        /// continues on the task pool after it. A handler that finishes without suspending is
        /// answered in the same pass of the I/O loop, with no hand-off at all. Only for handlers
        /// that do little work before they suspend: until then they hold up the I/O thread.
        /// Their tasks are not children of ``run()``: a drain that times out leaves them to
        /// finish on their own, unanswered.
        case ioThread = "io-thread"
        /// The operations the service names as quick (``MajordomoWorker/quickOperations``: a
        /// read served from memory) start as with ``ioThread``, every other one as with
        /// ``taskPool``. With no quick operations named, the same as ``taskPool``.
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

    private struct Completion {
        let job: Job
        let reply: [Frame]
    }

    /// Finished requests waiting for the I/O thread, and whether it is about to look at them
    /// anyway (then a completion needs no wake-up).
    private struct Completions {
        var list: [Completion] = []
        var ioThreadWillLook = false
    }

    /// The broker endpoint.
    public let endpoint: String
    /// The service name this worker registers.
    public let service: String
    /// How many requests it handles at once.
    public let concurrency: Int
    /// Where handlers begin to run.
    public let handlerStart: HandlerStart
    /// Operations (a request body's first frame) whose handlers answer from memory without
    /// waiting: under ``HandlerStart/quickOnIOThread`` they start on the I/O thread.
    public let quickOperations: Set<Frame>
    /// How it talks to the broker.
    public let transport: Transport
    let heartbeat: HeartbeatSettings
    let drainTimeoutMs: Int64
    /// How long a handler may run before the worker takes it as stuck (0: never); see
    /// ``HandlerWatch``.
    public let stallTimeoutMs: Int64
    private let onStall: @Sendable (HandlerWatch.Stall) -> Void
    private let watch = HandlerWatch()
    private let context: Context
    private let logger: Logger
    let handler: Handler
    private let completions = Mutex(Completions())
    private let draining = Atomic<Bool>(false)
    private let wake = WakeSignal()
    /// The ZMTP transport's connection, while ``run()`` runs with it.
    private let link = Mutex<WorkerLink?>(nil)
    /// When the broker last sent anything (monotonic ms; 0: never on this connection).
    let lastHeardMs = Atomic<Int64>(0)
    private let abandoned = Atomic<Int>(0)

    /// Replies of handlers that finished after the worker had stopped (its drain timed out with
    /// them in hand): dropped, never sent. The broker took the worker's DISCONNECT, and the
    /// callers had their answer from their deadlines.
    public var abandonedReplies: Int { abandoned.load(ordering: .relaxed) }

    func countAbandoned(_ replies: Int) {
        abandoned.add(replies, ordering: .relaxed)
    }

    /// Milliseconds since the broker last spoke to this worker (a request, a heartbeat), or nil
    /// when it has not yet on the current connection: a worker is registered while this stays
    /// under the heartbeat expiry.
    public var millisecondsSinceBrokerSpoke: Int64? {
        let heard = lastHeardMs.load(ordering: .relaxed)
        return heard == 0 ? nil : Monotonic.milliseconds() - heard
    }

    /// How long the broker may stay silent before the worker counts it gone (and reconnects).
    public var brokerExpiryMs: Int64 { heartbeat.expiryMs }

    /// Creates a worker; it connects when ``run()`` starts.
    ///
    /// A handler still running after `stallTimeoutMs` (0: never) is taken as stuck on a wait that
    /// will never end (``HandlerWatch``): `onStall` is called, by default a `critical` line and
    /// exit status 75 for the process's supervisor to start it afresh.
    public init(
        endpoint: String, service: String, concurrency: Int = 8, handlerStart: HandlerStart = .taskPool,
        transport: Transport = .auto, quickOperations: Set<String> = [],
        heartbeat: HeartbeatSettings = HeartbeatSettings(),
        drainTimeoutMs: Int64 = 30_000, stallTimeoutMs: Int64 = 300_000,
        onStall: (@Sendable (_ operation: String, _ runningMs: Int64) -> Void)? = nil,
        context: Context, logger: Logger, handler: @escaping Handler
    ) {
        precondition(!service.isEmpty && !service.hasPrefix(MDP.mmiPrefix), "invalid service name '\(service)'")
        self.endpoint = endpoint
        self.service = service
        self.concurrency = max(1, concurrency)
        self.handlerStart = handlerStart
        self.transport = transport
        self.quickOperations = Set(quickOperations.map { Array($0.utf8) })
        self.heartbeat = heartbeat
        self.drainTimeoutMs = drainTimeoutMs
        self.context = context
        self.logger = logger
        self.stallTimeoutMs = max(0, stallTimeoutMs)
        if let onStall {
            self.onStall = { onStall($0.operation, $0.runningMs) }
        } else {
            self.onStall = { [logger] stall in
                logger.critical(
                    "request handler stuck: no answer for too long; ending the process to be restarted",
                    metadata: [
                        "mdpService": "\(service)", "operation": "\(stall.operation)",
                        "runningSeconds": "\(stall.runningMs / 1000)", "running": "\(stall.running)",
                    ])
                exit(75)
            }
        }
        if self.stallTimeoutMs > 0 {
            let watch = self.watch
            self.handler = { body in
                let token = watch.begin(body.first, nowMs: Monotonic.milliseconds())
                defer { watch.end(token) }
                return await handler(body)
            }
        } else {
            self.handler = handler
        }
    }

    /// Starts draining: no new requests, finish the ones in hand, DISCONNECT, then return from ``run()``.
    public func drain() {
        draining.store(true, ordering: .releasing)
        wake.signal()
        // Under the lock: ``runZMTP(_:)`` clears the link under it before it shuts its loop down.
        link.withLock { link in
            if let link { link.eventLoop.execute { link.startDrain() } }
        }
    }

    /// The endpoint the ZMTP transport connects to, or nil when the worker uses libzmq.
    var zmtpEndpoint: EventLoopMajordomoClient.Endpoint? {
        transport == .libzmq ? nil : EventLoopMajordomoClient.Endpoint(endpoint)
    }

    /// The broker endpoint as the ZMTP transport will connect to it, or nil when this worker
    /// uses libzmq (``Transport/libzmq``, or ``Transport/auto`` with an `inproc://` endpoint).
    public var zmtpEndpointText: String? { zmtpEndpoint?.description }

    /// Runs until drained (graceful shutdown, cancellation or ``drain()``).
    public func run() async throws {
        if let target = zmtpEndpoint { return try await runZMTP(target) }
        guard transport != .zmtp else {
            throw MajordomoError(.unavailable, "the zmtp transport needs a tcp:// or ipc:// broker endpoint, not \(endpoint)")
        }
        // Jobs travel in batches, everything one receive pass found: one hand-off to the task
        // that starts the handlers per batch, not per request.
        let (batches, jobSink) = AsyncStream.makeStream(of: [Job].self)
        try await serve(.batches(batches)) {
            defer { jobSink.finish() }
            try await IOThread.run(name: "mdp-worker-\(self.service)") { [self] in try loop(jobs: jobSink) }
        }
    }

    /// Where ``serve(_:ioLoop:)`` finds the requests to start.
    private enum Feed {
        /// The libzmq loop's: a handler task for every job of each batch, each reply given to
        /// ``complete(_:reply:)``; the stream ends with the loop.
        case batches(AsyncStream<[Job]>)
        /// The ZMTP link's, which starts its handlers itself (``WorkerLink``): only its end, a
        /// stream that finishes when the link stops and never yields.
        case link(ended: AsyncStream<Never>)
    }

    /// Runs `ioLoop` (when the transport has one to run) and the stall watch beside the handlers
    /// of `feed`, until `feed` ends; graceful shutdown or cancellation drains the worker.
    private func serve(_ feed: Feed, ioLoop: (@Sendable () async throws -> Void)? = nil) async throws {
        try await withTaskCancellationOrGracefulShutdownHandler {
            // A discarding group: a finished handler task is released at once. (A plain task
            // group keeps every finished child until someone asks for its result, which here
            // nobody does: memory grew by each request ever handled.) An error of the I/O loop
            // still ends the group and is thrown from it.
            try await withThrowingDiscardingTaskGroup { group in
                if let ioLoop { group.addTask { try await ioLoop() } }
                if stallTimeoutMs > 0 {
                    group.addTask { [watch, stallTimeoutMs, onStall] in
                        let check = Duration.milliseconds(min(stallTimeoutMs / 4, 5_000))
                        while !Task.isCancelled {
                            try? await Task.sleep(for: check)
                            if let stall = watch.stalled(nowMs: Monotonic.milliseconds(), limitMs: stallTimeoutMs) {
                                onStall(stall)
                            }
                        }
                    }
                }
                switch feed {
                case .batches(let batches):
                    for await batch in batches {
                        for job in batch {
                            group.addTask {
                                let answer = await self.handler(job.body)
                                self.complete(job, reply: answer)
                            }
                        }
                    }
                case .link(let ended):
                    for await _ in ended {}
                }
                // The I/O loop has ended; anything still running could not be answered anyway.
                group.cancelAll()
            }
        } onCancelOrGracefulShutdown: {
            self.drain()
        }
    }

    /// ``run()`` with the ZMTP transport: the connection on an event loop of the worker's own
    /// (its thread named as the libzmq loop's is). The link starts the handlers itself, a read's
    /// pooled requests from one task on the pool (``WorkerLink``); `run()` waits for its end.
    private func runZMTP(_ target: EventLoopMajordomoClient.Endpoint) async throws {
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
        var failure: (any Error)?
        do {
            try await serve(.link(ended: ended))
        } catch {
            link.eventLoop.execute { link.startDrain() }
            failure = error
        }
        try? await link.stoppedPromise.futureResult.get()
        self.link.withLock { $0 = nil }
        await link.quiesce()
        try? await loops.shutdownGracefully()
        if let failure { throw failure }
    }

    private func complete(_ job: Job, reply: [Frame]) {
        // The I/O thread takes the whole list per wake-up, so only the first completion after
        // it emptied the list needs to wake it: one eventfd write per batch, not per reply.
        let mustWake = completions.withLock { state in
            state.list.append(Completion(job: job, reply: reply))
            return state.list.count == 1 && !state.ioThreadWillLook
        }
        if mustWake { wake.signal() }
    }

    // MARK: - I/O thread

    private func connect() throws -> Socket {
        let socket = try context.socket(.dealer)
        try socket.setHighWaterMarks(send: 0, receive: 0)
        try socket.connect(endpoint)
        let credit: [Frame] = concurrency > 1 ? [Array("\(concurrency)".utf8)] : []
        try socket.send(MDP.workerCommand(.ready, [Array(service.utf8)] + credit))
        return socket
    }

    private func loop(jobs: AsyncStream<[Job]>.Continuation) throws {
        var socket = try connect()
        defer { socket.close() }
        var poller = Poller()
        let socketSlot = poller.add(socket)
        let wakeSlot = poller.add(fileDescriptor: wake.fileDescriptor)
        logger.info(
            "worker connected",
            metadata: ["mdpService": "\(service)", "broker": "\(endpoint)", "concurrency": "\(concurrency)"])
        var generation = 0
        var inHand = 0
        var liveness = heartbeat.liveness
        var nextBeatAt = Monotonic.milliseconds() + heartbeat.intervalMs
        var drainDeadline: Int64?

        func reconnect(reason: String) throws {
            logger.warning("reconnecting to the broker", metadata: ["mdpService": "\(service)", "reason": "\(reason)"])
            socket.close()
            socket = try connect()
            poller.replace(socketSlot, with: socket)
            lastHeardMs.store(0, ordering: .relaxed)
            generation += 1
            inHand = 0
            liveness = heartbeat.liveness
        }

        while true {
            let now = Monotonic.milliseconds()
            if drainDeadline == nil && draining.load(ordering: .acquiring) {
                drainDeadline = now + drainTimeoutMs
                logger.info("worker draining", metadata: ["mdpService": "\(service)", "inHand": "\(inHand)"])
            }
            if let drainDeadline {
                if inHand == 0 { break }
                if now >= drainDeadline {
                    logger.warning(
                        "drain timed out; abandoning requests in hand",
                        metadata: ["mdpService": "\(service)", "inHand": "\(inHand)"])
                    break
                }
            }

            try poller.poll(timeoutMs: Int(max(0, nextBeatAt - now)))
            if poller.isReadable(wakeSlot) { wake.drain() }

            var batch: [Job] = []
            if poller.isReadable(socketSlot) {
                // Read in place; only the address and the body are copied out.
                while let message = try socket.receiveNative(dontWait: true) {
                    guard message.count >= 3, message.size(0) == 0, message.frame(1, equals: MDP.workerHeader),
                        message.size(2) == 1, let command = MDP.Command(rawValue: message.firstByte(2))
                    else {
                        logger.debug(
                            "dropped a malformed message from the broker", metadata: ["mdpService": "\(service)"])
                        continue
                    }
                    liveness = heartbeat.liveness
                    lastHeardMs.store(Monotonic.milliseconds(), ordering: .relaxed)
                    switch command {
                    case .request where message.count >= 5 && message.size(4) == 0:
                        // While draining, requests are left unanswered: the DISCONNECT that ends the
                        // drain makes the broker give them to another worker.
                        guard drainDeadline == nil else { continue }
                        inHand += 1
                        batch.append(
                            Job(generation: generation, address: message[3], body: message.body(from: 5).frames))
                    case .disconnect:
                        if drainDeadline == nil { try reconnect(reason: "broker sent DISCONNECT") }
                    default:
                        break
                    }
                }
            }
            if !batch.isEmpty {
                var pooled: [Job] = []
                var started = false
                for job in batch {
                    guard handlerStart.startsOnIOThread(job.body.first, quick: quickOperations) else {
                        pooled.append(job)
                        continue
                    }
                    if !started {
                        // The replies of handlers that finish without suspending are sent just below.
                        completions.withLock { $0.ioThreadWillLook = true }
                        started = true
                    }
                    Task.immediate { [self] in
                        let reply = await handler(job.body)
                        complete(job, reply: reply)
                    }
                }
                if !pooled.isEmpty { jobs.yield(pooled) }
            }

            var replied = false
            let finished = completions.withLock { state in
                state.ioThreadWillLook = false
                let taken = state.list
                state.list = []
                return taken
            }
            for completion in finished {
                guard completion.job.generation == generation else { continue }
                try socket.send(
                    [[], MDP.workerHeader, MDP.Command.reply.frame, completion.job.address, []],
                    body: .frames(completion.reply[...]))
                inHand -= 1
                replied = true
            }

            if Monotonic.milliseconds() >= nextBeatAt {
                nextBeatAt = Monotonic.milliseconds() + heartbeat.intervalMs
                liveness -= 1
                if liveness <= 0 {
                    if drainDeadline == nil {
                        try reconnect(reason: "no heartbeat from the broker for \(heartbeat.expiryMs) ms")
                    } else {
                        break
                    }
                } else if !replied {
                    try socket.send(MDP.workerCommand(.heartbeat))
                }
            }
        }
        _ = try? socket.send(MDP.workerCommand(.disconnect))
        logger.info("worker stopped", metadata: ["mdpService": "\(service)"])
    }
}

extension MajordomoWorker: Service {}
