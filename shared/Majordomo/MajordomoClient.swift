import CZeroMQ
import Logging
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// An asynchronous MDP client: many requests in flight over one DEALER socket.
///
/// Each request carries an 8-byte tag as an extra envelope frame before the empty delimiter;
/// the broker keeps the whole envelope and returns it with the reply, so replies that arrive in
/// any order find their caller. The socket lives on a dedicated thread started by ``run()``.
public final class MajordomoClient: Sendable {
    private struct Pending {
        let continuation: CheckedContinuation<[Frame], any Error>
        let deadline: Int64
        let service: String
    }

    private struct State {
        var outbox: [(tag: UInt64, message: Message)] = []
        var pending: [UInt64: Pending] = [:]
        /// No pending deadline is earlier than this (it may be earlier than the true earliest
        /// after replies arrive; the next expiry scan corrects it). Kept so the loop need not
        /// scan every pending request on every turn.
        var nearestDeadline = Int64.max
        var connected = false
        var stopped = false
    }

    /// The broker this client talks to.
    public let endpoint: String
    private let context: Context
    private let logger: Logger
    private let state = Mutex(State())
    private let nextTag = Atomic<UInt64>(1)
    private let wake = WakeSignal()
    private let started = Atomic<Bool>(false)

    /// Creates a client for the broker at `endpoint`; nothing is sent until ``run()`` runs.
    public init(endpoint: String, context: Context, logger: Logger) {
        self.endpoint = endpoint
        self.context = context
        self.logger = logger
    }

    /// Whether the socket is connected to the broker right now.
    public var isConnected: Bool { state.withLock { $0.connected } }

    /// Sends `body` to `service` and waits for its reply body, at most `timeout`.
    ///
    /// - Throws: ``MajordomoError`` with `unavailable` when the broker cannot be reached or lost
    ///   the request, `deadlineExceeded` when no reply came in time; `CancellationError` when the
    ///   calling task is cancelled.
    public func request(service: String, body: [Frame], timeout: Duration) async throws -> [Frame] {
        let tag = nextTag.add(1, ordering: .relaxed).oldValue
        let deadline = Monotonic.milliseconds() + timeout.wholeMilliseconds
        let message: Message =
            [withUnsafeBytes(of: tag) { Array($0) }, [], MDP.clientHeader, Array(service.utf8)] + body
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let (refused, first): (MajordomoError?, Bool) = state.withLock { state in
                    if state.stopped { return (MajordomoError(.shutdown, "the MDP client is shutting down"), false) }
                    state.pending[tag] = Pending(continuation: continuation, deadline: deadline, service: service)
                    state.nearestDeadline = min(state.nearestDeadline, deadline)
                    state.outbox.append((tag, message))
                    return (nil, state.outbox.count == 1)
                }
                // The I/O thread drains the whole outbox per wake-up: wake it once per batch.
                if let refused { continuation.resume(throwing: refused) } else if first { wake.signal() }
            }
        } onCancel: {
            state.withLock { $0.pending.removeValue(forKey: tag) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Runs the socket loop until graceful shutdown or cancellation; pending requests then fail with `shutdown`.
    public func run() async throws {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else {
            preconditionFailure("MajordomoClient.run() called twice")
        }
        try await withTaskCancellationOrGracefulShutdownHandler {
            try await IOThread.run(name: "mdp-client") { [self] in try loop() }
        } onCancelOrGracefulShutdown: {
            self.stop()
        }
    }

    /// Stops the loop; ``run()`` returns soon after.
    public func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
    }

    private func loop() throws {
        let socket = try context.socket(.dealer)
        try socket.setOption(ZMQ_IMMEDIATE, 1)
        try socket.setHighWaterMarks(send: 0, receive: 0)
        let monitorEndpoint = "inproc://mdp-client-monitor-\(ObjectIdentifier(self).hashValue)"
        try socket.monitor(monitorEndpoint, events: SocketEvent.connectionEvents)
        let monitor = try context.socket(.pair)
        try monitor.connect(monitorEndpoint)
        try socket.connect(endpoint)
        defer {
            socket.close()
            monitor.close()
            failAll(MajordomoError(.shutdown, "the MDP client stopped"))
        }

        var poller = Poller()
        let socketSlot = poller.add(socket)
        let wakeSlot = poller.add(fileDescriptor: wake.fileDescriptor)
        let monitorSlot = poller.add(monitor)
        var held: [(tag: UInt64, message: Message)] = []
        var connected = false

        while true {
            let now = Monotonic.milliseconds()
            let (outbox, nearest, stopped) = state.withLock { state in
                let outbox = state.outbox
                state.outbox.removeAll(keepingCapacity: true)
                return (outbox, state.pending.isEmpty ? nil : state.nearestDeadline, state.stopped)
            }
            if stopped { return }
            held.append(contentsOf: outbox)
            if connected && !held.isEmpty {
                var index = 0
                while index < held.count, try socket.send(held[index].message, dontWait: true) { index += 1 }
                held.removeFirst(index)
            }
            if let nearest, nearest <= now { expire(now: now, connected: connected, held: &held) }
            let timeout = nearest.map { max(0, min($0 - now, 1000)) } ?? 1000
            try poller.poll(timeoutMs: Int(timeout))
            if poller.isReadable(wakeSlot) { wake.drain() }
            if poller.isReadable(monitorSlot) {
                while let event = try monitor.receive(dontWait: true).flatMap(SocketEvent.init) {
                    if event == .connected {
                        connected = true
                    } else if event == .disconnected {
                        connected = false
                        // The broker keeps no state across a restart: what it held is gone.
                        failAll(MajordomoError(.unavailable, "lost the connection to the broker at \(endpoint)"))
                        held.removeAll()
                    }
                    state.withLock { $0.connected = connected }
                }
            }
            if poller.isReadable(socketSlot) {
                while let reply = try socket.receive(dontWait: true) { deliver(reply) }
            }
        }
    }

    private func deliver(_ reply: Message) {
        // [tag][empty]["MDPC01"][service][body...]
        guard reply.count >= 4, reply[0].count == 8, reply[1].isEmpty, reply[2] == MDP.clientHeader else {
            logger.debug("dropped a malformed reply from the broker", metadata: ["frames": "\(reply.count)"])
            return
        }
        let tag = reply[0].withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        let pending = state.withLock { $0.pending.removeValue(forKey: tag) }
        pending?.continuation.resume(returning: Array(reply[4...]))
    }

    private func expire(now: Int64, connected: Bool, held: inout [(tag: UInt64, message: Message)]) {
        let expired: [(UInt64, Pending)] = state.withLock { state in
            var due: [(UInt64, Pending)] = []
            var nearest = Int64.max
            for (tag, pending) in state.pending {
                if pending.deadline <= now {
                    due.append((tag, pending))
                } else {
                    nearest = min(nearest, pending.deadline)
                }
            }
            for (tag, _) in due { state.pending.removeValue(forKey: tag) }
            state.nearestDeadline = nearest
            return due
        }
        guard !expired.isEmpty else { return }
        let tags = Set(expired.map(\.0))
        held.removeAll { tags.contains($0.tag) }
        for (_, pending) in expired {
            let error =
                connected
                ? MajordomoError(.deadlineExceeded, "no reply from '\(pending.service)' before the deadline")
                : MajordomoError(.unavailable, "the broker at \(endpoint) is not reachable")
            pending.continuation.resume(throwing: error)
        }
    }

    private func failAll(_ error: MajordomoError) {
        let all = state.withLock { state in
            let all = state.pending
            state.pending.removeAll()
            state.nearestDeadline = .max
            return all
        }
        for pending in all.values { pending.continuation.resume(throwing: error) }
    }
}

extension MajordomoClient: Service {}
