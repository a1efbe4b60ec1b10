import CZeroMQ
import Foundation

/// Runs blocking ZeroMQ loops on dedicated OS threads, never on Swift's cooperative pool.
public enum IOThread {
    /// Runs `body` on a new thread named `name` and resumes the caller with its result.
    ///
    /// The caller's task is suspended (not blocked) while the thread runs; stopping the loop is
    /// the body's business (a flag and a ``WakeSignal``), since a thread cannot be cancelled.
    public static func run<T: Sendable>(
        name: String,
        _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                // Visible in `top -H` and profilers (the kernel keeps 15 characters).
                backplane_set_thread_name(String(name.prefix(15)))
                do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
            }
            thread.name = name
            thread.stackSize = 1 << 20
            thread.start()
        }
    }
}
