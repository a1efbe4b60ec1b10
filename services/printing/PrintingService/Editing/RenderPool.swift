import Dispatch
import Foundation
import Synchronization

/// A fixed number of dedicated threads for CPU-heavy rendering work (decoding, edits, Cairo), so
/// that it never holds one of Swift's cooperative threads; callers `await` the result.
///
/// Work runs in the order it was submitted. The threads live as long as the process (a pool is
/// made once at start), waiting on a semaphore when idle.
public final class RenderPool: Sendable {
    /// How many threads render at once.
    public let threads: Int
    private let pending = Mutex<[@Sendable () -> Void]>([])
    private let available = DispatchSemaphore(value: 0)

    /// A pool of `threads` threads (at least 1), named `render-1`, `render-2`, ...
    public init(threads: Int) {
        self.threads = max(1, threads)
        for index in 1...self.threads {
            let thread = Thread { [self] in
                // Named from inside: on Linux a name given before `start()` is not always kept.
                Thread.current.name = "render-\(index)"
                Self.members.withLock { $0[pthread_self()] = index }
                while true {
                    available.wait()
                    let work = pending.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                    work?()
                }
            }
            thread.start()
        }
    }

    /// Every pool thread (by `pthread_self()`) and its index in its pool.
    private static let members = Mutex<[pthread_t: Int]>([:])

    /// Which of a pool's threads runs the caller (1, 2, ...), or nil off every pool. (The thread
    /// name is not a reliable test on Linux: a new thread starts with its creator's name, and
    /// renaming it does not always show.)
    static var poolThreadIndex: Int? { members.withLock { $0[pthread_self()] } }

    /// The pool of code that is not given one: one thread per core.
    public static let shared = RenderPool(threads: ProcessInfo.processInfo.activeProcessorCount)

    /// Runs `work` on one of the pool's threads and returns (or throws) what it does.
    public func run<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            pending.withLock { $0.append { continuation.resume(with: Swift.Result { try work() }) } }
            available.signal()
        }
    }
}
