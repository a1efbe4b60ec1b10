import Contract
import Dispatch
import Foundation
import Store
import Synchronization

/// A fixed number of dedicated threads for CPU- or memory-heavy work (password hashes, image
/// rendering), so that it never holds one of Swift's cooperative threads; callers `await` the
/// result. Work runs in the order it was submitted.
///
/// Admission control for requests: work submitted on behalf of a request (one with a
/// ``RequestDeadline``) is refused at once with `unavailable` and a `Retry-After` estimate when
/// ``queueLimit`` such requests already wait, and dropped unrun with `deadline_exceeded` when
/// its deadline has passed by the time a thread is free. Work without a deadline (jobs) always
/// waits its turn.
public final class DedicatedThreadPool: Sendable {
    /// The pool's name; its threads are `NAME-1`, `NAME-2`, ...
    public let name: String
    /// How many threads run work at once.
    public let threads: Int
    /// Requests that may wait for a thread at once.
    public let queueLimit: Int

    private struct Job: Sendable {
        let deadline: Int64?
        let run: @Sendable () -> Void
        let expire: @Sendable () -> Void
    }

    private struct State {
        var queue: [Job] = []
        var head = 0
        var waitingRequests = 0
        /// Threads running a piece of work now.
        var busy = 0
        /// Average run time of one piece of work, in nanoseconds (an exponential moving average).
        var averageRunNanoseconds: Double = 0
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)
    private let clock: any WallClock

    /// A pool of `threads` threads (at least 1) that lets at most `queueLimit` requests wait.
    public init(name: String, threads: Int, queueLimit: Int = .max, clock: any WallClock = SystemClock()) {
        self.name = name
        self.threads = max(1, threads)
        self.queueLimit = max(0, queueLimit)
        self.clock = clock
        for index in 1...self.threads {
            let thread = Thread { [self] in
                // Named from inside: on Linux a name given before `start()` is not always kept.
                Thread.current.name = "\(name)-\(index)"
                Self.members.withLock { $0[pthread_self()] = (name, index) }
                while true {
                    available.wait()
                    guard let job = take() else { continue }
                    if let deadline = job.deadline, deadline <= nowMilliseconds() {
                        job.expire()
                        finished(runNanoseconds: nil)
                        continue
                    }
                    let started = DispatchTime.now().uptimeNanoseconds
                    job.run()
                    finished(runNanoseconds: DispatchTime.now().uptimeNanoseconds - started)
                }
            }
            thread.start()
        }
    }

    /// Every pool thread (by `pthread_self()`), its pool's name and its index there.
    private static let members = Mutex<[pthread_t: (name: String, index: Int)]>([:])

    /// The pool name and index of the thread running the caller, or nil off every pool. (The
    /// thread name is not a reliable test on Linux: a new thread starts with its creator's name,
    /// and renaming it does not always show.)
    public static var currentThread: (name: String, index: Int)? { members.withLock { $0[pthread_self()] } }

    /// Runs `work` on one of the pool's threads and returns (or throws) what it does.
    ///
    /// - Throws: `unavailable` (with `retryAfterSeconds`) when the request queue is full, and
    ///   `deadline_exceeded` when the request's deadline passed before a thread was free.
    public func run<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        let deadline = RequestDeadline.current
        return try await withCheckedThrowingContinuation { continuation in
            let job = Job(
                deadline: deadline,
                run: { continuation.resume(with: Swift.Result { try work() }) },
                expire: {
                    continuation.resume(
                        throwing: ServiceError(
                            .deadlineExceeded, "the request's deadline passed while it waited for the \(self.name) pool"
                        ))
                })
            if let refusal = enqueue(job) {
                continuation.resume(throwing: refusal)
            } else {
                available.signal()
            }
        }
    }

    /// Requests waiting for a thread now.
    public var waitingRequests: Int { state.withLock { $0.waitingRequests } }

    private func enqueue(_ job: Job) -> ServiceError? {
        state.withLock { state in
            if job.deadline != nil {
                let freeThread = state.busy + (state.queue.count - state.head) < threads
                guard freeThread || state.waitingRequests < queueLimit else {
                    let wait = Double(state.waitingRequests + 1) * state.averageRunNanoseconds / Double(threads) / 1e9
                    let seconds = max(1, Int(wait.rounded(.up)))
                    return ServiceError(
                        .unavailable, "the \(name) pool is full (\(queueLimit) requests waiting); try again shortly",
                        details: ["retryAfterSeconds": .number(Double(seconds))])
                }
                state.waitingRequests += 1
            }
            state.queue.append(job)
            return nil
        }
    }

    private func take() -> Job? {
        state.withLock { state in
            guard state.head < state.queue.count else { return nil }
            let job = state.queue[state.head]
            state.head += 1
            if state.head == state.queue.count {
                state.queue.removeAll(keepingCapacity: state.queue.count <= 4096)
                state.head = 0
            } else if state.head >= 1024, state.head * 2 >= state.queue.count {
                state.queue.removeFirst(state.head)
                state.head = 0
            }
            if job.deadline != nil { state.waitingRequests -= 1 }
            state.busy += 1
            return job
        }
    }

    private func finished(runNanoseconds: UInt64?) {
        state.withLock { state in
            state.busy -= 1
            guard let runNanoseconds else { return }
            let sample = Double(runNanoseconds)
            state.averageRunNanoseconds =
                state.averageRunNanoseconds == 0 ? sample : state.averageRunNanoseconds * 0.9 + sample * 0.1
        }
    }

    private func nowMilliseconds() -> Int64 {
        Int64((clock.now().timeIntervalSince1970 * 1000).rounded(.down))
    }
}

extension DedicatedThreadPool {
    /// The render pool of code that is not given one: one thread per core, no request limit.
    public static let sharedRender = DedicatedThreadPool(
        name: "render", threads: ProcessInfo.processInfo.activeProcessorCount)
}
