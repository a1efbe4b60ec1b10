import Foundation
import Glibc
import Logging
import Majordomo
import Synchronization
import ZeroMQ

/// `loadgen broker`: round trips per second and latency of the messaging layer, in one run:
/// raw DEALER↔ROUTER with no broker (the machine's limit), then through our Majordomo broker
/// with 1 and 4 workers, each at 1 and 100 requests in flight, our `MajordomoClient` at 100 in
/// flight, and the broker's rules alone.
public struct BrokerBench: Sendable {
    /// Measured seconds per run (after a warm-up of a quarter of that).
    public var seconds: Double
    /// Payload bytes per request.
    public var payloadBytes: Int
    /// MDP worker connections (slots) per worker process: requests one worker handles at once.
    public var slots: Int
    /// libzmq I/O threads of the shared context.
    public var ioThreads: Int32 = Int32(ProcessInfo.processInfo.environment["BENCH_IO_THREADS"] ?? "1") ?? 1
    public init(seconds: Double = 3, payloadBytes: Int = 64, slots: Int = 32) {
        self.seconds = seconds
        self.payloadBytes = payloadBytes
        self.slots = slots
    }

    static let logger: Logger = {
        var logger = Logger(label: "loadgen")
        logger.logLevel = .error
        return logger
    }()

    /// One measured case: its label and how to run it.
    struct Case: Sendable {
        let label: String
        let run: @Sendable (BrokerBench) async throws -> RunResult
    }

    /// Every case, in the order they are reported.
    static let cases: [Case] = [
        Case(label: "raw-1") { try await $0.raw(inFlight: 1) },
        Case(label: "raw-100") { try await $0.raw(inFlight: 100) },
        Case(label: "raw-mdp-frames-100") { try await $0.raw(inFlight: 100, mdpFrames: true) },
        Case(label: "broker-1w-1") { try await $0.throughBroker(workers: 1, inFlight: 1) },
        Case(label: "broker-1w-100") { try await $0.throughBroker(workers: 1, inFlight: 100) },
        Case(label: "broker-4w-1") { try await $0.throughBroker(workers: 4, inFlight: 1) },
        Case(label: "broker-4w-100") { try await $0.throughBroker(workers: 4, inFlight: 100) },
        Case(label: "broker-io-1w-100") { try await $0.throughBroker(workers: 1, inFlight: 100, start: .ioThread) },
        Case(label: "broker-io-4w-100") { try await $0.throughBroker(workers: 4, inFlight: 100, start: .ioThread) },
        Case(label: "async-4w-100") { try await $0.asyncClient(workers: 4, inFlight: 100) },
        Case(label: "core-rules-4w") { try await $0.rulesAlone(workers: 4, inFlight: 100, credit: 32) },
        // One worker that never has credit left: every reply puts it back in line.
        Case(label: "core-rules-1w") { try await $0.rulesAlone(workers: 1, inFlight: 100, credit: 32) },
    ]

    /// The label of the case every share is taken against.
    static let rawLabel = "raw-100"

    /// Runs the cases whose label contains `only` (all when nil) and returns the results in order,
    /// one list per round. With more than one round each round starts with the raw case (also
    /// when `only` leaves it out), so that every share compares figures taken minutes apart at
    /// most, not a fast raw run with a slow broker run.
    public func run(only: String? = nil, rounds: Int = 1, progress: @Sendable (String) -> Void) async throws
        -> [[RunResult]]
    {
        let chosen = Self.cases.filter { benchCase in
            (only.map { benchCase.label.contains($0) } ?? true) || (rounds > 1 && benchCase.label == Self.rawLabel)
        }
        var all: [[RunResult]] = []
        for round in 1...max(1, rounds) {
            var results: [RunResult] = []
            for benchCase in chosen {
                progress(rounds > 1 ? "\(benchCase.label) (round \(round) of \(rounds))" : benchCase.label)
                results.append(try await benchCase.run(self))
            }
            all.append(results)
        }
        return all
    }

    // MARK: - Cases

    /// `mdpFrames`: the same frames a client request carries through the broker (empty, MDPC01,
    /// service), to separate the cost of MDP's framing from the cost of the extra hop.
    func raw(inFlight: Int, mdpFrames: Bool = false) async throws -> RunResult {
        let context = Context(ioThreads: ioThreads)
        let server = try context.socket(.router)
        try server.setHighWaterMarks(send: 0, receive: 0)
        try server.bind("tcp://127.0.0.1:*")
        let endpoint = try server.lastEndpoint()
        let stop = StopFlag()
        let echo = SocketHandOff(server)
        async let serving: Void = IOThread.run(name: "raw-echo") {
            let socket = echo.socket
            defer { socket.close() }
            var poller = Poller()
            poller.add(socket)
            while !stop.isSet {
                try poller.poll(timeoutMs: 100)
                while let message = try socket.receive(dontWait: true) {
                    _ = try socket.send(message)
                }
            }
        }
        let header: Message = mdpFrames ? [[], MDP.clientHeader, Array("echo".utf8)] : []
        let name = mdpFrames ? "raw DEALER-ROUTER with MDP's client frames" : "raw DEALER-ROUTER (no broker)"
        let result = try await drive(name: name, endpoint: endpoint, context: context, inFlight: inFlight) { stamp in
            header + [stamp, payload]
        } stamp: { reply in
            reply.count > header.count ? reply[header.count] : nil
        }
        stop.set()
        try await serving
        return result
    }

    /// Runs `body` against an in-process broker with `workers` `MajordomoWorker`s.
    func withBroker(
        workers: Int, start: MajordomoWorker.HandlerStart = .taskPool,
        _ body: @Sendable (String, Context) async throws -> RunResult
    ) async throws -> RunResult {
        let context = Context(ioThreads: ioThreads)
        let broker = try makeBroker()
        let pool = (0..<workers).map { _ in
            MajordomoWorker(
                endpoint: broker.endpoint, service: "echo", concurrency: slots, handlerStart: start, logger: Self.logger
            ) { body in body }
        }
        return try await withThrowingTaskGroup(of: RunResult?.self) { group in
            group.addTask {
                try await broker.run(); return nil
            }
            for worker in pool {
                group.addTask {
                    try await worker.run(); return nil
                }
            }
            try await Task.sleep(for: .milliseconds(500))
            var result = try await body(broker.endpoint, context)
            for worker in pool { worker.drain() }
            try await Task.sleep(for: .milliseconds(100))
            broker.stop()
            try await group.waitForAll()
            result.hubCPUMicros = Self.cpuMicrosPerTrip(of: broker)
            return result
        }
    }

    /// A broker on a loopback port.
    func makeBroker() throws -> Broker {
        try Broker(configuration: BrokerConfiguration(endpoint: "tcp://127.0.0.1:*"), logger: Self.logger)
    }

    /// A stopped broker's thread CPU time per reply it passed on, in microseconds.
    static func cpuMicrosPerTrip(of broker: Broker) -> Double? {
        cpuMicrosPerTrip(broker.threadCPUTime, trips: broker.statistics.replies)
    }

    static func cpuMicrosPerTrip(_ cpu: Duration, trips: Int) -> Double? {
        guard trips > 0 else { return nil }
        return Double(cpu.nanoseconds) / 1000 / Double(trips)
    }

    func throughBroker(workers: Int, inFlight: Int, start: MajordomoWorker.HandlerStart = .taskPool) async throws
        -> RunResult
    {
        let service = Array("echo".utf8)
        let payload = self.payload
        let placement = start == .taskPool ? "" : ", handlers start on the I/O thread"
        return try await withBroker(workers: workers, start: start) { endpoint, context in
            try await drive(
                name: "broker, \(workers) worker\(workers == 1 ? "" : "s") (concurrency \(slots)\(placement))",
                endpoint: endpoint,
                context: context,
                inFlight: inFlight
            ) { stamp in
                [[], MDP.clientHeader, service, stamp, payload]
            } stamp: { reply in
                reply.count >= 4 ? reply[3] : nil
            }
        }
    }

    func asyncClient(workers: Int, inFlight: Int) async throws -> RunResult {
        let body = [payload]
        let seconds = self.seconds
        let name = "broker, \(workers) workers (concurrency \(slots)), MajordomoClient, \(inFlight) in flight"
        return try await withBroker(workers: workers) { endpoint, _ in
            guard let client = MajordomoClient(endpoint: endpoint, logger: Self.logger) else {
                throw MajordomoError(.unavailable, "no client for \(endpoint)")
            }
            let running = Task { try await client.run() }
            try await Task.sleep(for: .milliseconds(200))
            let start = ContinuousClock.now
            let warmEnd = start + .seconds(seconds / 4)
            let end = warmEnd + .seconds(seconds)
            let recorder = SharedRecorder()
            try await withThrowingTaskGroup(of: Void.self) { callers in
                for _ in 0..<inFlight {
                    callers.addTask {
                        while ContinuousClock.now < end {
                            let sent = ContinuousClock.now
                            _ = try await client.request(service: "echo", body: body, timeout: .seconds(10))
                            let done = ContinuousClock.now
                            if sent >= warmEnd && done <= end {
                                let nanoseconds = UInt64((done - sent).nanoseconds)
                                recorder.state.withLock { $0.record(nanoseconds: nanoseconds) }
                            }
                        }
                    }
                }
                try await callers.waitForAll()
            }
            client.stop()
            try await running.value
            return recorder.state.withLock { $0.result(name: name, seconds: seconds) }
        }
    }

    /// The broker's rules alone: ``BrokerCore`` on one thread, fed client requests and worker
    /// replies from memory with no sockets. Its CPU time per round trip is the broker's own
    /// bookkeeping, apart from the sockets and the kernel.
    func rulesAlone(workers: Int, inFlight: Int, credit: Int) async throws -> RunResult {
        let seconds = self.seconds
        let payload = self.payload
        return try await IOThread.run(name: "broker-rules") {
            let service = Array("echo".utf8)
            var core = BrokerCore(
                configuration: BrokerConfiguration(),
                now: Monotonic.milliseconds())
            var out: [Outgoing] = []
            for index in 0..<workers {
                let ready: Message = [
                    [0, 0, 0, 1, UInt8(index)], [], MDP.workerHeader, MDP.Command.ready.frame, service,
                ]
                core.handle(ready + [Array("\(credit)".utf8)], now: Monotonic.milliseconds(), into: &out)
            }
            let request: Message = [[0, 0, 0, 2, 0], [], MDP.clientHeader, service, payload]
            for _ in 0..<inFlight { core.handle(request, now: Monotonic.milliseconds(), into: &out) }
            // `out` is the queue of messages the broker sent, oldest first from `next`: each
            // REQUEST to a worker is answered, and each reply to the client brings a new request.
            var next = 0
            var trips = 0
            let end = Self.now() + UInt64(seconds * 1e9)
            let cpuAtStart = ThreadCPUClock.nanoseconds()
            while Self.now() < end {
                for _ in 0..<1_000 {
                    let sent = out[next]
                    next += 1
                    if case .request(let worker, let number) = sent.kind {
                        // [worker, "", MDPW01, REQUEST, address, ""] + body: the worker answers.
                        let reply: Message = [
                            worker, [], MDP.workerHeader, MDP.Command.reply.frame, BrokerCore.addressFrame(number), [],
                        ]
                        core.handle(reply + sent.body.frames, now: Monotonic.milliseconds(), into: &out)
                    } else {
                        trips += 1
                        core.handle(request, now: Monotonic.milliseconds(), into: &out)
                    }
                }
                out.removeFirst(next)
                next = 0
            }
            let cpu = Duration.nanoseconds(ThreadCPUClock.nanoseconds() - cpuAtStart)
            var result = RunResult(
                name:
                    "broker rules alone (BrokerCore in memory, no sockets), \(workers) worker\(workers == 1 ? "" : "s") (credit \(credit))",
                count: trips, seconds: seconds, p50: 0, p99: 0, max: 0)
            result.hubCPUMicros = Self.cpuMicrosPerTrip(cpu, trips: trips)
            return result
        }
    }

    // MARK: - Driver

    private var payload: Frame { Frame(repeating: 0x61, count: payloadBytes) }

    /// Keeps `inFlight` requests outstanding on one DEALER from a dedicated thread, replacing each
    /// reply with a new request (closed loop), and records each round trip.
    private func drive(
        name: String, endpoint: String, context: Context, inFlight: Int,
        request: @escaping @Sendable (Frame) -> Message, stamp: @escaping @Sendable (Message) -> Frame?
    ) async throws -> RunResult {
        let seconds = self.seconds
        let recorder = try await IOThread.run(name: "bench-client") {
            let socket = try context.socket(.dealer)
            defer { socket.close() }
            try socket.setHighWaterMarks(send: 0, receive: 0)
            try socket.connect(endpoint)
            var poller = Poller()
            poller.add(socket)
            var recorder = LatencyRecorder()
            let start = Self.now()
            let warmEnd = start + UInt64(seconds / 4 * 1e9)
            let end = warmEnd + UInt64(seconds * 1e9)
            for _ in 0..<inFlight { try socket.send(request(Self.frame(Self.now()))) }
            var outstanding = inFlight
            while outstanding > 0 {
                try poller.poll(timeoutMs: 1000)
                while let reply = try socket.receive(dontWait: true) {
                    outstanding -= 1
                    let now = Self.now()
                    if let stamp = stamp(reply), stamp.count == 8 {
                        let sent = stamp.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                        if sent >= warmEnd && now <= end { recorder.record(nanoseconds: now - sent) }
                    }
                    if now < end {
                        try socket.send(request(Self.frame(now)))
                        outstanding += 1
                    }
                }
                if Self.now() > end + 5_000_000_000 { break }
            }
            return recorder
        }
        return recorder.result(name: "\(name), \(inFlight) in flight", seconds: seconds)
    }

    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    static func frame(_ value: UInt64) -> Frame { withUnsafeBytes(of: value) { Array($0) } }
}

/// A flag one thread sets and another reads.
final class StopFlag: @unchecked Sendable {
    // A plain Bool read by a polling loop; the poll time-out bounds how late the stop is seen,
    // and the lock makes the write visible.
    private var value = false
    private let lock = NSLock()
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// Moves a socket to the thread that will own it from then on; thread start is the memory
/// barrier libzmq requires for that.
struct SocketHandOff: @unchecked Sendable {
    let socket: Socket
    init(_ socket: Socket) { self.socket = socket }
}

/// A recorder many tasks write to.
final class SharedRecorder: Sendable {
    let state = Mutex(LatencyRecorder())
}
