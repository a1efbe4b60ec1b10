import Foundation
import Majordomo
import NIOCore
import NIOPosix
import ServiceKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What the app scenarios measure, per request kind (`locate`, `route`, `login`, ...): latency
/// from when each request was due, and the answers by HTTP status.
final class Tally: Sendable {
    struct Kind: Sendable {
        var recorder = LatencyRecorder()
        /// Answers by status; 0 is a request that got no HTTP answer (refused, timed out).
        var statuses: [Int: Int] = [:]
        /// Answers that were not among the statuses the scenario expects.
        var errors = 0
    }

    private let kinds = Mutex<[String: Kind]>([:])
    /// Requests started and finished, for the progress line.
    let started = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
    /// Requests sent again after no answer or a 502/503/504 (the postcard journey's orders).
    let retries = Atomic<Int>(0)
    /// Bytes of whole journeys by name: journeys finished, bytes sent, bytes received.
    let journeys = Mutex<[String: JourneyBytes]>([:])

    /// What finished journeys of one kind sent and received over HTTP, in all.
    struct JourneyBytes: Sendable, Hashable {
        var count = 0
        var sent = 0
        var received = 0
        /// Bytes of the photo each journey uploads (0 when none).
        var photo = 0
    }

    /// Records one finished journey's bytes.
    func record(journey: String, sent: Int, received: Int, photo: Int) {
        journeys.withLock { all in
            var entry = all[journey] ?? JourneyBytes()
            entry.count += 1
            entry.sent += sent
            entry.received += received
            entry.photo = photo
            all[journey] = entry
        }
    }

    /// Records one answer. `expected` are the statuses that are a correct answer for this
    /// request (a 401 for a wrong password is one); only those count in the latency figures.
    func record(_ kind: String, status: Int, latency: Duration, expected: Set<Int>) {
        record(kind, status: status, latency: latency, correct: expected.contains(status))
    }

    /// Records one answer, judged by the caller: only correct ones count in the latency figures.
    /// The kind is looked up once, and its entry changed in place: a copy of the entry would
    /// copy its histogram's counts on every answer.
    func record(_ kind: String, status: Int, latency: Duration, correct: Bool) {
        kinds.withLock { all in
            let index: Dictionary<String, Kind>.Index
            if let found = all.index(forKey: kind) {
                index = found
            } else {
                all[kind] = Kind()
                index = all.index(forKey: kind)!
            }
            all.values[index].statuses[status, default: 0] += 1
            if correct {
                all.values[index].recorder.record(nanoseconds: UInt64(max(0, latency.nanoseconds)))
            } else {
                all.values[index].errors += 1
            }
        }
    }

    var snapshot: [String: Kind] { kinds.withLock { $0 } }
}

/// One request due at a moment of an open-loop run; `run` sends it (and any follow-up steps of
/// the same journey) and records into the tally.
struct Arrival: Sendable {
    /// Offset from the start of the run.
    let offset: Duration
    let run: @Sendable (_ due: ContinuousClock.Instant) async -> Void
}

/// Where arrivals come from, in time order.
protocol ArrivalSource: Sendable {
    /// The next arrival, or nil when there are no more.
    mutating func next() -> Arrival?
}

/// Starts arrivals when they are due, whatever the answers' speed (open loop: a slow answer
/// does not delay the requests behind it, so it cannot hide them). At most `inFlight` are
/// open at once; an arrival due while that many are open starts when one finishes, and its
/// latency still counts from when it was due.
struct OpenLoop {
    var seconds: Double
    var inFlight: Int
    /// Seconds of a progress line; 0 for none.
    var progressEvery: Double = 1
    /// Where each arrival's task runs: the event loops (``EventLoopTaskExecutor``) for the app
    /// scenarios, so that a request is made, sent, read and tallied on its connection's thread;
    /// nil for Swift's global executor.
    var executor: (any TaskExecutor)?

    func run(_ source: some ArrivalSource, tally: Tally) async -> Double {
        var source = source
        let start = ContinuousClock.now + .milliseconds(20)
        let end = start + .seconds(seconds)
        let state = RunState()
        let limit = inFlight
        await withDiscardingTaskGroup { group in
            if progressEvery > 0 {
                let every = progressEvery
                group.addTask { await Self.progress(tally: tally, state: state, start: start, every: every) }
            }
            while let arrival = source.next() {
                let due = start + arrival.offset
                if due >= end { break }
                while state.open.load(ordering: .relaxed) >= limit { await Self.pause(until: .now + .microseconds(200)) }
                if due - ContinuousClock.now > .microseconds(500) { await Self.pause(until: due) }
                state.open.add(1, ordering: .relaxed)
                tally.started.add(1, ordering: .relaxed)
                // A task of its own, not a child of the group: the group's list of children is
                // walked to remove each one that ends, which cost 5% of the load generator's CPU
                // at NavUP's 6,250 requests/s. `open` tells when they have all finished.
                Task(executorPreference: executor) {
                    await arrival.run(due)
                    tally.finished.add(1, ordering: .relaxed)
                    state.open.subtract(1, ordering: .relaxed)
                }
            }
            while state.open.load(ordering: .relaxed) > 0 { try? await Task.sleep(for: .milliseconds(5)) }
            state.done.store(true, ordering: .relaxed)
        }
        return Double((ContinuousClock.now - start).nanoseconds) / 1e9
    }

    /// Waits until `instant`. A task running on an event loop (``EventLoopTaskExecutor``) waits
    /// on that loop's own timer, which its `epoll_wait` serves, so no timer thread wakes and hands
    /// the task back for each arrival; elsewhere, `Task.sleep`.
    static func pause(until instant: ContinuousClock.Instant) async {
        guard let loop = MultiThreadedEventLoopGroup.currentEventLoop else {
            try? await Task.sleep(until: instant, clock: .continuous)
            return
        }
        let wait = instant - .now
        guard wait > .zero else { return }
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            loop.scheduleTask(in: .nanoseconds(wait.nanoseconds)) { continuation.resume() }
        }
    }

    /// A line a second: elapsed time, arrivals started and answered (a journey is one), open,
    /// errors, the worst p99 so far, then the requests answered and those sent again (after no
    /// answer or a 502/503/504), which a drill differences over its phases. On a terminal it
    /// rewrites itself in place.
    private static func progress(
        tally: Tally, state: RunState, start: ContinuousClock.Instant, every: Double
    ) async {
        let terminal = isatty(STDERR_FILENO) != 0
        while !state.done.load(ordering: .relaxed) {
            try? await Task.sleep(for: .seconds(every))
            let kinds = tally.snapshot
            let errors = kinds.values.map(\.errors).reduce(0, +)
            let p99 = kinds.values.map { $0.recorder.result(name: "", seconds: 1).p99 }.max() ?? 0
            let requests = kinds.values.map { $0.statuses.values.reduce(0, +) }.reduce(0, +)
            let line = String(
                format: "%6.1f s  started %d  answered %d  open %d  errors %d  worst p99 %.1f ms  requests %d"
                    + "  again %d",
                Double((ContinuousClock.now - start).nanoseconds) / 1e9, tally.started.load(ordering: .relaxed),
                tally.finished.load(ordering: .relaxed), state.open.load(ordering: .relaxed), errors,
                Double(p99) / 1000, requests, tally.retries.load(ordering: .relaxed)
            )
            FileHandle.standardError.write(Data((terminal ? "\r\(line)\u{1B}[K" : "\(line)\n").utf8))
        }
        if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}

/// Counters the dispatcher, the requests and the progress line share.
private final class RunState: Sendable {
    let open = Atomic<Int>(0)
    let done = Atomic<Bool>(false)
}

/// Arrivals of several sources merged by time.
struct MergedArrivals: ArrivalSource {
    private var sources: [any ArrivalSource]
    private var heads: [Arrival?]

    init(_ sources: [any ArrivalSource]) {
        self.sources = sources
        heads = []
        for index in self.sources.indices { heads.append(self.sources[index].next()) }
    }

    mutating func next() -> Arrival? {
        var best: Int?
        for (index, head) in heads.enumerated() {
            guard let head else { continue }
            if best == nil || head.offset < heads[best!]!.offset { best = index }
        }
        guard let best else { return nil }
        let arrival = heads[best]
        heads[best] = sources[best].next()
        return arrival
    }
}

/// Arrivals at a fixed rate: one every 1/rate seconds.
struct SteadyArrivals: ArrivalSource {
    let rate: Double
    let make: @Sendable (Int) -> @Sendable (ContinuousClock.Instant) async -> Void
    private var index = 0

    init(rate: Double, make: @escaping @Sendable (Int) -> @Sendable (ContinuousClock.Instant) async -> Void) {
        self.rate = rate
        self.make = make
    }

    mutating func next() -> Arrival? {
        guard rate > 0 else { return nil }
        defer { index += 1 }
        return Arrival(offset: .seconds(Double(index) / rate), run: make(index))
    }
}

/// Simulated users, each doing each of its actions periodically: user `u` does action `a`
/// first at a random moment within the action's period, then every period (±10% jitter so
/// that users do not stay in lockstep). A min-heap keeps the next due action of every user.
struct PeriodicUsers: ArrivalSource {
    struct Action: Sendable {
        let every: Double
        let run: @Sendable (_ user: Int, _ due: ContinuousClock.Instant) async -> Void
    }

    private let actions: [Action]
    /// (due in µs, user, action) ordered by due.
    private var heap: [(due: Int64, user: Int32, action: Int16)] = []
    private var random: SeededRandom

    init(users: Int, actions: [Action], seed: UInt64 = 2026) {
        self.actions = actions
        random = SeededRandom(seed: seed)
        heap.reserveCapacity(users * actions.count)
        for user in 0..<users {
            for (index, action) in actions.enumerated() where action.every > 0 {
                let first = Int64(random.unit() * action.every * 1e6)
                push((first, Int32(user), Int16(index)))
            }
        }
    }

    mutating func next() -> Arrival? {
        guard let top = heap.first else { return nil }
        let action = actions[Int(top.action)]
        let jitter = 0.9 + 0.2 * random.unit()
        replaceTop((top.due + Int64(action.every * jitter * 1e6), top.user, top.action))
        let user = Int(top.user)
        let run = action.run
        return Arrival(offset: .microseconds(top.due)) { due in await run(user, due) }
    }

    private mutating func push(_ element: (due: Int64, user: Int32, action: Int16)) {
        heap.append(element)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func replaceTop(_ element: (due: Int64, user: Int32, action: Int16)) {
        heap[0] = element
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].due < heap[smallest].due { smallest = left }
            if right < heap.count && heap[right].due < heap[smallest].due { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
