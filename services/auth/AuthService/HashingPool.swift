import Foundation

/// A fixed set of dedicated threads that run CPU- and memory-heavy jobs (password hashes) one
/// per thread, in arrival order, and resume the awaiting task with each result.
final class HashingPool: Sendable {
    private struct Job: Sendable {
        let work: @Sendable () -> Void
    }

    private let condition = NSCondition()
    // Guarded by `condition`; never touched without holding it.
    nonisolated(unsafe) private var queue: [Job] = []

    init(threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [self] in self.serve() }
            thread.name = "argon2-\(index)"
            thread.start()
        }
    }

    /// Runs `work` on one of the pool's threads and returns its result.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        return try await withCheckedThrowingContinuation { continuation in
            let job = Job {
                do { continuation.resume(returning: try work()) } catch { continuation.resume(throwing: error) }
            }
            condition.lock()
            queue.append(job)
            condition.signal()
            condition.unlock()
        }
    }

    private static let marker = "backplane.hashing-pool"

    /// Whether the calling thread is one of a hashing pool's.
    static var isPoolThread: Bool { Thread.current.threadDictionary[marker] != nil }

    private func serve() {
        Thread.current.threadDictionary[Self.marker] = true
        while true {
            condition.lock()
            while queue.isEmpty { condition.wait() }
            let job = queue.removeFirst()
            condition.unlock()
            job.work()
        }
    }
}
