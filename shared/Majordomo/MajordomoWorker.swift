import CZeroMQ
import Logging
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// An MDP worker process for one service, handling up to `concurrency` requests at a time.
///
/// It connects one DEALER socket and registers with READY. RFC 7 gives a worker one request at a
/// time; when `concurrency` is above 1 the READY carries an optional fifth frame, the worker's
/// credit (Backplane's extension, see README), and our broker then keeps up to that many
/// requests in flight on this one connection. A broker that ignores the frame simply sends one
/// at a time. The worker heartbeats, and reconnects with a new socket when the broker goes
/// silent or says DISCONNECT (a broker restart). On graceful shutdown it stops taking requests,
/// finishes and answers the ones in hand, then sends DISCONNECT (the broker gives anything it
/// sent meanwhile to another worker), and ``run()`` returns.
public final class MajordomoWorker: Sendable {
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

    /// The broker endpoint.
    public let endpoint: String
    /// The service name this worker registers.
    public let service: String
    /// How many requests it handles at once.
    public let concurrency: Int
    private let heartbeat: HeartbeatSettings
    private let drainTimeoutMs: Int64
    private let context: Context
    private let logger: Logger
    private let handler: Handler
    private let completions = Mutex<[Completion]>([])
    private let draining = Atomic<Bool>(false)
    private let wake = WakeSignal()

    /// Creates a worker; it connects when ``run()`` starts.
    public init(
        endpoint: String, service: String, concurrency: Int = 8,
        heartbeat: HeartbeatSettings = HeartbeatSettings(), drainTimeoutMs: Int64 = 30_000,
        context: Context, logger: Logger, handler: @escaping Handler
    ) {
        precondition(!service.isEmpty && !service.hasPrefix(MDP.mmiPrefix), "invalid service name '\(service)'")
        self.endpoint = endpoint
        self.service = service
        self.concurrency = max(1, concurrency)
        self.heartbeat = heartbeat
        self.drainTimeoutMs = drainTimeoutMs
        self.context = context
        self.logger = logger
        self.handler = handler
    }

    /// Starts draining: no new requests, finish the ones in hand, DISCONNECT, then return from ``run()``.
    public func drain() {
        draining.store(true, ordering: .releasing)
        wake.signal()
    }

    /// Runs until drained (graceful shutdown, cancellation or ``drain()``).
    public func run() async throws {
        // Jobs travel in batches, everything one receive pass found: one hand-off to the task
        // that starts the handlers per batch, not per request.
        let (batches, jobSink) = AsyncStream.makeStream(of: [Job].self)
        try await withTaskCancellationOrGracefulShutdownHandler {
            // A discarding group: a finished handler task is released at once. (A plain task
            // group keeps every finished child until someone asks for its result, which here
            // nobody does: memory grew by each request ever handled.) An error of the I/O loop
            // still ends the group and is thrown from it.
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask {
                    defer { jobSink.finish() }
                    try await IOThread.run(name: "mdp-worker-\(self.service)") { [self] in try loop(jobs: jobSink) }
                }
                for await batch in batches {
                    for job in batch {
                        group.addTask {
                            let reply = await self.handler(job.body)
                            self.complete(job, reply: reply)
                        }
                    }
                }
                // The I/O loop has ended; anything still running could not be answered anyway.
                group.cancelAll()
            }
        } onCancelOrGracefulShutdown: {
            self.drain()
        }
    }

    private func complete(_ job: Job, reply: [Frame]) {
        // The I/O thread takes the whole list per wake-up, so only the first completion after
        // it emptied the list needs to wake it: one eventfd write per batch, not per reply.
        let first = completions.withLock { list in
            list.append(Completion(job: job, reply: reply))
            return list.count == 1
        }
        if first { wake.signal() }
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

            var replied = false
            for completion in completions.withLock({ list in
                defer { list.removeAll() }; return list
            }) {
                guard completion.job.generation == generation else { continue }
                try socket.send(
                    [[], MDP.workerHeader, MDP.Command.reply.frame, completion.job.address, []],
                    body: .frames(completion.reply[...]))
                inHand -= 1
                replied = true
            }

            if poller.isReadable(socketSlot) {
                var batch: [Job] = []
                defer { if !batch.isEmpty { jobs.yield(batch) } }
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
