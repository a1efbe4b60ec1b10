import CZeroMQ
import Logging
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// An MDP worker process for one service, handling up to `concurrency` requests at a time.
///
/// RFC 7 gives a worker one request at a time, so concurrency comes from `concurrency` worker
/// connections ("slots") on one I/O thread; the broker spreads requests over them like over any
/// workers. Each slot heartbeats, and reconnects with a new socket when the broker goes silent or
/// says DISCONNECT (a broker restart). On graceful shutdown idle slots send DISCONNECT at once,
/// busy ones after their reply, and ``run()`` returns when all are done.
public final class MajordomoWorker: Sendable {
    /// Handles one request body and returns the reply body.
    public typealias Handler = @Sendable ([Frame]) async -> [Frame]

    struct Job: Sendable {
        let slot: Int
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
        let (jobs, jobSink) = AsyncStream.makeStream(of: Job.self)
        try await withTaskCancellationOrGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    defer { jobSink.finish() }
                    try await IOThread.run(name: "mdp-worker-\(self.service)") { [self] in try loop(jobs: jobSink) }
                }
                for await job in jobs {
                    group.addTask {
                        let reply = await self.handler(job.body)
                        self.complete(job, reply: reply)
                    }
                }
                // The I/O loop has ended; anything still running could not be answered anyway.
                group.cancelAll()
                while let result = await group.nextResult() {
                    if case .failure(let error) = result, !(error is CancellationError) { throw error }
                }
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

    private struct Slot {
        var socket: Socket
        var generation = 0
        var busy = false
        var liveness: Int
        var finished = false
    }

    private func connect() throws -> Socket {
        let socket = try context.socket(.dealer)
        try socket.setHighWaterMarks(send: 0, receive: 0)
        try socket.connect(endpoint)
        try socket.send(MDP.workerCommand(.ready, [Array(service.utf8)]))
        return socket
    }

    private func loop(jobs: AsyncStream<Job>.Continuation) throws {
        var slots: [Slot] = []
        var poller = Poller()
        for _ in 0..<concurrency {
            let socket = try connect()
            poller.add(socket)
            slots.append(Slot(socket: socket, liveness: heartbeat.liveness))
        }
        defer { for slot in slots { slot.socket.close() } }
        let wakeSlot = poller.add(fileDescriptor: wake.fileDescriptor)
        logger.info("worker connected", metadata: ["service": "\(service)", "broker": "\(endpoint)", "slots": "\(concurrency)"])
        var nextBeatAt = Monotonic.milliseconds() + heartbeat.intervalMs
        var drainDeadline: Int64?

        func reconnect(_ index: Int, reason: String) throws {
            logger.warning("reconnecting to the broker", metadata: ["service": "\(service)", "slot": "\(index)", "reason": "\(reason)"])
            slots[index].socket.close()
            let socket = try connect()
            poller.replace(index, with: socket)
            slots[index].socket = socket
            slots[index].generation += 1
            slots[index].busy = false
            slots[index].liveness = heartbeat.liveness
        }

        func finish(_ index: Int) throws {
            try slots[index].socket.send(MDP.workerCommand(.disconnect))
            slots[index].finished = true
        }

        while true {
            let now = Monotonic.milliseconds()
            if drainDeadline == nil && draining.load(ordering: .acquiring) {
                drainDeadline = now + drainTimeoutMs
                for index in slots.indices where !slots[index].busy { try finish(index) }
                logger.info("worker draining", metadata: ["service": "\(service)", "busy": "\(slots.filter(\.busy).count)"])
            }
            if slots.allSatisfy(\.finished) { break }
            if let drainDeadline, now >= drainDeadline {
                logger.warning("drain timed out; abandoning requests in hand", metadata: ["service": "\(service)"])
                break
            }

            try poller.poll(timeoutMs: Int(max(0, nextBeatAt - now)))
            if poller.isReadable(wakeSlot) { wake.drain() }

            for completion in completions.withLock({ list in defer { list.removeAll() }; return list }) {
                let index = completion.job.slot
                guard slots[index].generation == completion.job.generation, !slots[index].finished else { continue }
                let reply = MDP.workerCommand(.reply, [completion.job.address, []]) + completion.reply
                try slots[index].socket.send(reply)
                slots[index].busy = false
                if drainDeadline != nil { try finish(index) }
            }

            for index in slots.indices where !slots[index].finished && poller.isReadable(index) {
                while let message = try slots[index].socket.receive(dontWait: true) {
                    guard message.count >= 3, message[0].isEmpty, message[1] == MDP.workerHeader,
                        message[2].count == 1, let command = MDP.Command(rawValue: message[2][0])
                    else {
                        logger.debug("dropped a malformed message from the broker", metadata: ["service": "\(service)"])
                        continue
                    }
                    slots[index].liveness = heartbeat.liveness
                    switch command {
                    case .request where message.count >= 5 && message[4].isEmpty:
                        guard drainDeadline == nil, !slots[index].busy else { continue }
                        slots[index].busy = true
                        jobs.yield(Job(slot: index, generation: slots[index].generation, address: message[3], body: Array(message[5...])))
                    case .disconnect:
                        if drainDeadline == nil { try reconnect(index, reason: "broker sent DISCONNECT") }
                    default:
                        break
                    }
                    if slots[index].finished || slots[index].socket.isClosed { break }
                }
            }

            if Monotonic.milliseconds() >= nextBeatAt {
                nextBeatAt = Monotonic.milliseconds() + heartbeat.intervalMs
                for index in slots.indices where !slots[index].finished {
                    slots[index].liveness -= 1
                    if slots[index].liveness <= 0 {
                        if drainDeadline == nil {
                            try reconnect(index, reason: "no heartbeat from the broker for \(heartbeat.expiryMs) ms")
                        } else {
                            slots[index].finished = true
                        }
                    } else {
                        try slots[index].socket.send(MDP.workerCommand(.heartbeat))
                    }
                }
            }
        }
        logger.info("worker stopped", metadata: ["service": "\(service)"])
    }
}

extension MajordomoWorker: Service {}
