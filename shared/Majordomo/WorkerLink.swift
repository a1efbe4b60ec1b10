import CZeroMQ
import Glibc
import Logging
import NIOCore
import NIOPosix
import Synchronization
import ZeroMQ

/// ``MajordomoWorker``'s connection to the broker when it speaks ZMTP 3.1 itself
/// (``MajordomoWorker/Transport/zmtp``), on one SwiftNIO event loop of the worker's own.
///
/// With libzmq a request crossed two threads before its handler saw it (libzmq's I/O thread,
/// then the worker's loop) and its reply the same two back. Here the loop reads the broker's
/// bytes, decodes them with ``ZMTPDecoder`` (the broker's own decoder), hands the requests over in
/// one batch per read, and writes each pass's replies in one write: one thread between the socket
/// and the handlers.
///
/// It keeps the worker's promises as the libzmq loop does: READY with the credit frame,
/// heartbeats, a new connection (and a new READY) when the broker goes silent, says DISCONNECT
/// or drops the connection, and a drain that answers the requests in hand before DISCONNECT.
/// A connection that cannot be made is tried again after 100 ms, doubling to 1 s.
///
/// Everything but the immutable fields and ``completions`` is touched only on ``eventLoop``.
final class WorkerLink: ZMTPDealerOwner, @unchecked Sendable {
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
        /// The link has stopped: its loop may be shut down at any moment, so nothing may be
        /// scheduled on it any more. A reply that comes after this is dropped (its request was
        /// abandoned at the drain timeout; the broker has the worker's DISCONNECT).
        var closed = false
    }

    let eventLoop: any EventLoop
    private let worker: MajordomoWorker
    private let target: EventLoopMajordomoClient.Endpoint
    private let logger: Logger
    /// Finished when the link stops, which ends ``MajordomoWorker/run()``'s wait. The link starts
    /// its handlers itself (``startOnPool(_:)``).
    private let lifetime: AsyncStream<Never>.Continuation
    /// Succeeds once the worker has said DISCONNECT and closed its connection.
    let stoppedPromise: EventLoopPromise<Void>
    private let completions = Mutex(Completions())
    /// Wake-ups claimed under ``completions``' lock and not yet scheduled (see ``quiesce()``).
    private let wakesUnderWay = Atomic<Int>(0)

    /// The connection whose handshake is done and which carries requests.
    private var channel: (any Channel)?
    /// The connection from TCP connect on, handshake done or not.
    private var live: (any Channel)?
    private var connecting = false
    private var generation = 0
    private var inHand = 0
    private var liveness: Int
    /// A reply went out since the last heartbeat (then the beat sends none: a reply is a sign
    /// of life). READY does not count, as in the libzmq loop: the first beat after it always goes
    /// out, so a broker that expired this worker meanwhile answers DISCONNECT at once.
    private var sentSinceBeat = false
    private var beat: RepeatedTask?
    private var drainDeadline: Int64?
    private var stopped = false
    private var everConnected = false
    private var unreachable = false
    private var retryDelayMs: Int64 = 100
    /// The requests of the read under way.
    private var batch: [MajordomoWorker.Job] = []

    private static let handshakeTimeout = TimeAmount.seconds(5)

    init(
        worker: MajordomoWorker, eventLoop: any EventLoop, target: EventLoopMajordomoClient.Endpoint, logger: Logger,
        lifetime: AsyncStream<Never>.Continuation
    ) {
        self.worker = worker
        self.eventLoop = eventLoop
        self.target = target
        self.logger = logger
        self.lifetime = lifetime
        self.liveness = worker.heartbeat.liveness
        self.stoppedPromise = eventLoop.makePromise()
    }

    // MARK: Lifecycle (on the loop)

    func start() {
        let interval = TimeAmount.milliseconds(worker.heartbeat.intervalMs)
        beat = eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [self] _ in heartbeat() }
        connect()
    }

    /// Stops taking requests; DISCONNECT once the ones in hand are answered (or at the drain
    /// timeout). Called again, it does nothing.
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

    private func connect() {
        guard !stopped, !connecting, live == nil else { return }
        connecting = true
        let attempt = ZMTPDealerHandler.connect(to: target, on: eventLoop, owner: self)
        attempt.whenComplete { [self] result in
            connecting = false
            guard case .failure(let error) = result else { return }
            if !unreachable {
                unreachable = true
                logger.warning(
                    "cannot reach the broker; retrying",
                    metadata: ["mdpService": "\(worker.service)", "broker": "\(worker.endpoint)", "error": "\(error)"])
            }
            retryLater()
        }
    }

    private func retryLater() {
        guard !stopped else { return }
        let delay = retryDelayMs
        retryDelayMs = min(retryDelayMs * 2, 1000)
        eventLoop.scheduleTask(in: .milliseconds(delay)) { [self] in connect() }
    }

    /// Starts over on a new connection: what is in hand is not answered (the broker gives a
    /// departed worker's requests to another one).
    private func reconnect(reason: String) {
        logger.warning("reconnecting to the broker", metadata: ["mdpService": "\(worker.service)", "reason": "\(reason)"])
        forgetConnection()
        live?.close(promise: nil)
        live = nil
        channel = nil
        connect()
    }

    private func forgetConnection() {
        generation += 1
        inHand = 0
        liveness = worker.heartbeat.liveness
        worker.lastHeardMs.store(0, ordering: .relaxed)
    }

    func opened(_ channel: any Channel) {
        guard !stopped, live == nil else {
            channel.close(promise: nil)
            return
        }
        live = channel
        // A peer that accepts TCP but never finishes the handshake (not a ZMTP broker) is dropped.
        eventLoop.scheduleTask(in: Self.handshakeTimeout) { [self] in
            guard live === channel, self.channel !== channel else { return }
            logger.warning(
                "the broker did not finish the ZMTP handshake; reconnecting",
                metadata: ["mdpService": "\(worker.service)", "broker": "\(worker.endpoint)"])
            channel.close(promise: nil)
        }
    }

    /// The broker's ZMTP READY: register with MDP's READY (and the credit frame).
    func ready(_ channel: any Channel) {
        guard live === channel, !stopped else { return }
        self.channel = channel
        retryDelayMs = 100
        liveness = worker.heartbeat.liveness
        let credit: [Frame] = worker.concurrency > 1 ? [Array("\(worker.concurrency)".utf8)] : []
        channel.writeAndFlush(Self.encode(MDP.workerCommand(.ready, [Array(worker.service.utf8)] + credit)[...]), promise: nil)
        if !everConnected || unreachable {
            everConnected = true
            unreachable = false
            logger.info(
                "worker connected",
                metadata: [
                    "mdpService": "\(worker.service)", "broker": "\(worker.endpoint)",
                    "concurrency": "\(worker.concurrency)",
                ])
        }
    }

    func closed(_ channel: any Channel) {
        guard live === channel else { return }
        live = nil
        self.channel = nil
        guard !stopped else { return }
        if drainDeadline != nil {
            // What is in hand can no longer be answered on this connection; the broker hands it on.
            return finish()
        }
        logger.warning(
            "lost the connection to the broker; reconnecting",
            metadata: ["mdpService": "\(worker.service)", "broker": "\(worker.endpoint)", "inHand": "\(inHand)"])
        unreachable = true
        forgetConnection()
        retryLater()
    }

    func protocolError(_ error: ZMTPProtocolError, on channel: any Channel) {
        logger.warning(
            "the broker broke the ZMTP protocol; reconnecting",
            metadata: ["mdpService": "\(worker.service)", "broker": "\(worker.endpoint)", "error": "\(error)"])
        channel.close(promise: nil)
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

    /// A whole message from the broker, on `channel` (on the loop). Requests wait in ``batch``
    /// until the read is done.
    func received(_ frames: [Frame], on channel: any Channel) {
        guard channel === self.channel else { return }
        guard frames.count >= 3, frames[0].isEmpty, frames[1] == MDP.workerHeader, frames[2].count == 1,
            let command = MDP.Command(rawValue: frames[2][0])
        else {
            logger.debug("dropped a malformed message from the broker", metadata: ["mdpService": "\(worker.service)"])
            return
        }
        liveness = worker.heartbeat.liveness
        worker.lastHeardMs.store(Monotonic.milliseconds(), ordering: .relaxed)
        switch command {
        case .request where frames.count >= 5 && frames[4].isEmpty:
            // While draining, requests are left unanswered: the DISCONNECT that ends the drain
            // makes the broker give them to another worker.
            guard drainDeadline == nil else { return }
            inHand += 1
            batch.append(MajordomoWorker.Job(generation: generation, address: frames[3], body: Array(frames[5...])))
        case .disconnect:
            if drainDeadline == nil { reconnect(reason: "broker sent DISCONNECT") }
        default:
            break
        }
    }

    /// Starts the handlers of one read's requests (on the loop): the quick ones here, the rest
    /// handed to the task pool together (``startOnPool(_:)``). Replies of handlers that finished
    /// at once leave in this pass.
    func readComplete(on channel: any Channel) {
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

    /// Starts one read's pooled requests (``MajordomoWorker/HandlerStart/taskPool``) from one
    /// task on the pool: one thread woken per read, not one per request. That task starts them in
    /// turn, each running on its thread until its first suspension (`Task.immediate`); once it has
    /// spent ``PoolPass/budgetNanoseconds`` so, the rest start as tasks of their own. A handler
    /// that computes for long before it suspends thus holds up only the requests read with it and
    /// queued behind it, never the loop or a later read (whose task takes another pool thread).
    /// Replies of handlers that finished within the pass leave in one wake-up of the loop, at its
    /// end.
    ///
    /// The tasks are not children of ``MajordomoWorker/run()``, as with ``MajordomoWorker/HandlerStart/ioThread``:
    /// a drain that times out leaves them to finish on their own, unanswered.
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

    /// A handler's reply, from any thread. Only the first reply after the loop emptied the list
    /// wakes it: one hand-off per batch of replies, not per reply. `deferWake`: the reply comes
    /// from within a ``PoolPass``, which wakes the loop at its end.
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

    /// Schedules ``writeCompletions()`` on the loop, for a wake-up claimed (and counted in
    /// ``wakesUnderWay``) under the lock. Not under the lock itself: scheduling writes to the
    /// loop's eventfd, and the loop would wait on the lock for that system call.
    private func wake() {
        eventLoop.execute { [self] in writeCompletions() }
        wakesUnderWay.subtract(1, ordering: .releasing)
    }

    /// Returns once no wake-up claimed before the link stopped is still being scheduled: after
    /// that, nothing schedules on the loop any more, and it may shut down (scheduling on a loop
    /// that has is an error in SwiftNIO). Call after ``stoppedPromise`` succeeded.
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
        // Every reply of the pass goes in one buffer and one write: one allocation and one pass
        // through the pipeline, however many replies finished; the frames are written straight
        // into the buffer's memory.
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
    /// Whether the caller must wake the loop for the replies in ``list``: not when it will look
    /// anyway or a wake-up is already on its way. Claims the wake-up when it must.
    fileprivate mutating func claimWake() -> Bool {
        guard !loopWillLook, !wakePending else { return false }
        wakePending = true
        return true
    }
}

/// One pass of ``WorkerLink``'s task that starts a read's pooled requests: the thread it runs
/// on, since when, and whether it still runs.
final class PoolPass: Sendable {
    /// How long a pass starts requests in turn before it gives each of the rest a task of its
    /// own: 200 µs, many times what a handler usually does before its first suspension (decoding a
    /// request, sending a query).
    static let budgetNanoseconds: Int64 = 200_000

    private let thread = pthread_self()
    private let began = Monotonic.nanoseconds()
    private let running = Atomic<Bool>(true)

    /// Whether the next request may still start within the pass.
    func withinBudget() -> Bool {
        Monotonic.nanoseconds() - began < Self.budgetNanoseconds
    }

    /// Whether the caller runs within this pass: a handler started by it that has not suspended.
    /// (A handler that suspended resumes on a thread the pass no longer holds.)
    var isCurrent: Bool {
        pthread_equal(thread, pthread_self()) != 0 && running.load(ordering: .relaxed)
    }

    /// The pass has started every request.
    func end() {
        running.store(false, ordering: .relaxed)
    }
}
