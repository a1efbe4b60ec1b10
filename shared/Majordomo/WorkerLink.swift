import CZeroMQ
import Glibc
import Logging
import NIOCore
import NIOPosix
import Synchronization
import ZeroMQ

/// ``MajordomoWorker``'s connection to the broker, on an event loop of the worker's own: READY
/// with the credit frame, heartbeats, a new connection when the broker goes silent or says
/// DISCONNECT, and a drain that answers the requests in hand before DISCONNECT. The requests of
/// one read start together; each pass's replies leave in one write.
///
/// Everything but the immutable fields and ``completions`` is touched only on ``eventLoop``.
final class WorkerLink: BrokerConnection, @unchecked Sendable {
    fileprivate struct Completion {
        let job: MajordomoWorker.Job
        let reply: [Frame]
    }

    /// Replies waiting for the loop.
    fileprivate struct Completions {
        var list: [Completion] = []
        /// The loop is about to look at ``list`` anyway: a reply needs no wake-up.
        var loopWillLook = false
        /// A wake-up is on its way to the loop.
        var wakePending = false
        /// The link has stopped and its loop may shut down: later replies are dropped.
        var closed = false
    }

    private let worker: MajordomoWorker
    /// Finished when the link stops, which ends ``MajordomoWorker/run()``'s wait.
    private let lifetime: AsyncStream<Never>.Continuation
    /// Succeeds once the worker has said DISCONNECT and closed its connection.
    let stoppedPromise: EventLoopPromise<Void>
    private let completions = Mutex(Completions())
    /// Wake-ups claimed under ``completions``' lock and not yet scheduled (see ``quiesce()``).
    private let wakesUnderWay = Atomic<Int>(0)

    private var generation = 0
    private var inHand = 0
    private var liveness: Int
    /// A reply went out since the last beat, which then sends none. READY does not count, so a
    /// broker that expired this worker meanwhile answers the first beat with DISCONNECT.
    private var sentSinceBeat = false
    private var beat: RepeatedTask?
    private var drainDeadline: Int64?
    private var everConnected = false
    /// The requests of the read under way.
    private var batch: [MajordomoWorker.Job] = []

    init(
        worker: MajordomoWorker, eventLoop: any EventLoop, target: MajordomoClient.Endpoint, logger: Logger,
        lifetime: AsyncStream<Never>.Continuation
    ) {
        self.worker = worker
        self.lifetime = lifetime
        self.liveness = worker.heartbeat.liveness
        self.stoppedPromise = eventLoop.makePromise()
        super.init(eventLoop: eventLoop, target: target, logger: logger, metadata: ["mdpService": "\(worker.service)"])
    }

    // MARK: Lifecycle (on the loop)

    func start() {
        let interval = TimeAmount.milliseconds(worker.heartbeat.intervalMs)
        beat = eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [self] _ in heartbeat() }
        connect()
    }

    /// Stops taking requests; DISCONNECT once the ones in hand are answered or at the timeout.
    func startDrain() {
        guard drainDeadline == nil, !stopped else { return }
        drainDeadline = Monotonic.milliseconds() + worker.drainTimeoutMs
        logger.info("worker draining", metadata: ["mdpService": "\(worker.service)", "inHand": "\(inHand)"])
        guard inHand > 0 else { return finish() }
        eventLoop.scheduleTask(in: .milliseconds(worker.drainTimeoutMs)) { [self] in
            guard !stopped else { return }
            logger.warning(
                "drain timed out; abandoning requests in hand",
                metadata: ["mdpService": "\(worker.service)", "inHand": "\(inHand)"])
            finish()
        }
    }

    private func finish() {
        guard !stopped else { return }
        stopped = true
        beat?.cancel()
        let late = completions.withLock { state in
            state.closed = true
            defer { state.list = [] }
            return state.list.count
        }
        if late > 0 { worker.countAbandoned(late) }
        lifetime.finish()
        logger.info("worker stopped", metadata: ["mdpService": "\(worker.service)"])
        guard let live else { return stoppedPromise.succeed() }
        let done = stoppedPromise
        if let channel {
            channel.writeAndFlush(Self.encode(MDP.workerCommand(.disconnect)[...])).whenComplete { _ in
                channel.close(promise: nil)
            }
        } else {
            live.close(promise: nil)
        }
        live.closeFuture.whenComplete { _ in done.succeed() }
    }

    // MARK: The connection (on the loop)

    /// Starts over: what is in hand is not answered (the broker hands it to another worker).
    override func reconnect(reason: String) {
        forgetConnection()
        super.reconnect(reason: reason)
    }

    private func forgetConnection() {
        generation += 1
        inHand = 0
        liveness = worker.heartbeat.liveness
        worker.lastHeardMs.store(0, ordering: .relaxed)
    }

    /// The broker's ZMTP READY: register with MDP's READY (and the credit frame).
    override func connected(_ channel: any Channel, afterOutage: Bool) {
        liveness = worker.heartbeat.liveness
        let credit: [Frame] = worker.concurrency > 1 ? [Array("\(worker.concurrency)".utf8)] : []
        channel.writeAndFlush(Self.encode(MDP.workerCommand(.ready, [Array(worker.service.utf8)] + credit)[...]), promise: nil)
        if !everConnected || afterOutage {
            everConnected = true
            logger.info("worker connected", metadata: metadata.merging(["concurrency": "\(worker.concurrency)"]) { $1 })
        }
    }

    override func lost(_ channel: any Channel, wasReady: Bool) -> Bool {
        if drainDeadline != nil {
            // What is in hand can no longer be answered on this connection; the broker hands it on.
            finish()
            return false
        }
        logger.warning(
            "lost the connection to the broker; reconnecting", metadata: metadata.merging(["inHand": "\(inHand)"]) { $1 })
        forgetConnection()
        return true
    }

    private func heartbeat() {
        guard !stopped else { return }
        liveness -= 1
        if liveness <= 0 {
            if drainDeadline != nil { return finish() }
            // While a connection is still being made there is nothing to give up yet.
            if connecting { liveness = worker.heartbeat.liveness } else {
                reconnect(reason: "no heartbeat from the broker for \(worker.heartbeat.expiryMs) ms")
            }
            return
        }
        if !sentSinceBeat, let channel {
            channel.writeAndFlush(Self.encode(MDP.workerCommand(.heartbeat)[...]), promise: nil)
        }
        sentSinceBeat = false
    }

    // MARK: Requests and replies

    /// A whole message from the broker; requests wait in ``batch`` until the read is done.
    override func received(_ frames: [Frame], on channel: any Channel) {
        guard channel === self.channel else { return }
        guard frames.count >= 3, frames[0].isEmpty, frames[1] == MDP.workerHeader, frames[2].count == 1,
            let command = MDP.Command(rawValue: frames[2][0])
        else {
            logger.debug("dropped a malformed message from the broker", metadata: metadata)
            return
        }
        liveness = worker.heartbeat.liveness
        worker.lastHeardMs.store(Monotonic.milliseconds(), ordering: .relaxed)
        switch command {
        case .request where frames.count >= 5 && frames[4].isEmpty:
            // Left unanswered while draining: after DISCONNECT the broker hands them on.
            guard drainDeadline == nil else { return }
            inHand += 1
            batch.append(MajordomoWorker.Job(generation: generation, address: frames[3], body: Array(frames[5...])))
        case .disconnect:
            if drainDeadline == nil { reconnect(reason: "broker sent DISCONNECT") }
        default:
            break
        }
    }

    /// Starts one read's handlers: the quick ones here, the rest on the pool (``startOnPool(_:)``).
    override func readComplete(on channel: any Channel) {
        guard !batch.isEmpty else { return }
        defer { batch.removeAll(keepingCapacity: true) }
        var pooled: [MajordomoWorker.Job] = []
        var started = false
        for job in batch {
            guard worker.handlerStart.startsOnIOThread(job.body.first, quick: worker.quickOperations) else {
                pooled.append(job)
                continue
            }
            if !started {
                completions.withLock { $0.loopWillLook = true }
                started = true
            }
            let handler = worker.handler
            Task.immediate { [self] in
                let reply = await handler(job.body)
                complete(job, reply: reply)
            }
        }
        if !pooled.isEmpty { startOnPool(pooled) }
        if started { writeCompletions() }
    }

    /// Starts one read's pooled requests from one pool task, each until its first suspension;
    /// past ``PoolPass/budgetNanoseconds`` the rest get a task each, so a handler that computes
    /// holds up only the requests read with it. Not children of ``MajordomoWorker/run()``.
    private func startOnPool(_ pooled: [MajordomoWorker.Job]) {
        let handler = worker.handler
        guard pooled.count > 1 else {
            let job = pooled[0]
            Task { [self] in complete(job, reply: await handler(job.body)) }
            return
        }
        Task { [self] in
            let pass = PoolPass()
            for job in pooled {
                if pass.withinBudget() {
                    Task.immediate { [self] in
                        let reply = await handler(job.body)
                        complete(job, reply: reply, deferWake: pass.isCurrent)
                    }
                } else {
                    Task { [self] in complete(job, reply: await handler(job.body)) }
                }
            }
            pass.end()
            wakeIfWaiting()
        }
    }

    /// A handler's reply, from any thread; only the first one after the loop emptied the list
    /// wakes it. `deferWake`: within a ``PoolPass``, which wakes the loop at its end.
    func complete(_ job: MajordomoWorker.Job, reply: [Frame], deferWake: Bool = false) {
        let outcome = completions.withLock { state -> Handed in
            guard !state.closed else { return .dropped }
            state.list.append(Completion(job: job, reply: reply))
            guard !deferWake, state.claimWake() else { return .queued }
            wakesUnderWay.add(1, ordering: .relaxed)
            return .mustWake
        }
        switch outcome {
        case .mustWake: wake()
        case .dropped: worker.countAbandoned(1)
        case .queued: break
        }
    }

    /// What became of a reply handed to ``complete(_:reply:deferWake:)``.
    private enum Handed { case queued, mustWake, dropped }

    /// Schedules ``writeCompletions()`` for a wake-up claimed under the lock (outside it: the
    /// loop would wait on the lock for the eventfd write).
    private func wake() {
        eventLoop.execute { [self] in writeCompletions() }
        wakesUnderWay.subtract(1, ordering: .releasing)
    }

    /// Returns once no claimed wake-up is still being scheduled, so the loop may shut down.
    /// Call after ``stoppedPromise`` succeeded.
    func quiesce() async {
        while wakesUnderWay.load(ordering: .acquiring) > 0 { await Task.yield() }
    }

    /// Wakes the loop when replies wait and no wake-up is on its way (the end of a ``PoolPass``).
    private func wakeIfWaiting() {
        let mustWake = completions.withLock { state in
            guard !state.closed, !state.list.isEmpty, state.claimWake() else { return false }
            wakesUnderWay.add(1, ordering: .relaxed)
            return true
        }
        if mustWake { wake() }
    }

    private func writeCompletions() {
        let finished = completions.withLock { state in
            state.loopWillLook = false
            state.wakePending = false
            defer { state.list = [] }
            return state.list
        }
        // One buffer and one write for every reply of the pass.
        let generation = generation
        var size = 0
        for completion in finished where completion.job.generation == generation {
            inHand -= 1
            size += Self.replySize(completion)
        }
        if size > 0, let channel {
            var replies = channel.allocator.buffer(capacity: size)
            replies.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { memory in
                var out = ZMTPFrameWriter(memory)
                for completion in finished where completion.job.generation == generation {
                    Self.writeReply(to: completion.job.address, completion.reply, into: &out)
                }
                return out.count
            }
            channel.writeAndFlush(replies, promise: nil)
            sentSinceBeat = true
        }
        if drainDeadline != nil && inHand <= 0 { finish() }
    }

    /// The bytes ``writeReply(to:_:into:)`` writes for `completion`.
    private static func replySize(_ completion: Completion) -> Int {
        // "", MDPW01, REPLY, address, "".
        var size = 2 + (2 + MDP.workerHeader.count) + (2 + 1) + 2
        size += ZMTPWire.headerSize(completion.job.address.count) + completion.job.address.count
        for frame in completion.reply { size += ZMTPWire.headerSize(frame.count) + frame.count }
        return size
    }

    /// `["", "MDPW01", REPLY, address, "", reply...]` as ZMTP.
    static func writeReply(to address: Frame, _ reply: [Frame], into out: inout ZMTPFrameWriter) {
        out.emptyFrame(more: true)
        out.frame(MDP.workerHeader, more: true)
        out.frame(MDP.Command.reply.frame, more: true)
        out.frame(address, more: true)
        out.emptyFrame(more: !reply.isEmpty)
        for index in reply.indices { out.frame(reply[index], more: index < reply.count - 1) }
    }

    /// A message's frames as ZMTP: `head` then `tail`, every frame but the last flagged MORE.
    static func encode(_ head: ArraySlice<Frame>, _ tail: ArraySlice<Frame> = []) -> ByteBuffer {
        let frames = head + tail
        let size = frames.reduce(0) { $0 + ZMTPWire.headerSize($1.count) + $1.count }
        var buffer = ByteBufferAllocator().buffer(capacity: size)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { memory in
            var out = ZMTPFrameWriter(memory)
            for index in frames.indices { out.frame(frames[index], more: index < frames.endIndex - 1) }
            return out.count
        }
        return buffer
    }
}

extension WorkerLink.Completions {
    /// Claims the wake-up for ``list`` unless the loop will look anyway or one is on its way.
    fileprivate mutating func claimWake() -> Bool {
        guard !loopWillLook, !wakePending else { return false }
        wakePending = true
        return true
    }
}

/// One pass of the pool task that starts a read's requests.
final class PoolPass: Sendable {
    /// How long a pass starts requests in turn: many times what a handler does before it waits.
    static let budgetNanoseconds: Int64 = 200_000

    private let thread = pthread_self()
    private let began = Monotonic.nanoseconds()
    private let running = Atomic<Bool>(true)

    /// Whether the next request may still start within the pass.
    func withinBudget() -> Bool {
        Monotonic.nanoseconds() - began < Self.budgetNanoseconds
    }

    /// Whether the caller is a handler of this pass that has not suspended yet.
    var isCurrent: Bool {
        pthread_equal(thread, pthread_self()) != 0 && running.load(ordering: .relaxed)
    }

    /// The pass has started every request.
    func end() {
        running.store(false, ordering: .relaxed)
    }
}
