import NIOCore
import PostgresNIO

/// A task executor (SE-0417) that runs its jobs on one event loop: a connection's own.
///
/// PostgresNIO writes a query into its connection's channel without a promise for the write, so
/// a query written after the channel closed is dropped and its caller waits for good. Whether the
/// channel is open, read on its own loop, stays true until that loop's next turn; so a check on the
/// loop followed at once by the query (which writes before its first suspension) leaves no gap
/// for the close to slip into. ``PostgresConnection/sendingOnlyIfOpen(_:)`` does that.
final class ConnectionLoopExecutor: TaskExecutor, Sendable {
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}

extension PostgresConnection {
    /// Runs `body` on this connection's event loop after checking there that the connection is
    /// open: what `body` writes to the connection before its first suspension (one query, or a
    /// prepared statement) is written while the channel is open, so it is answered or fails with
    /// the connection, and is never dropped unanswered. A connection already closed throws
    /// ``StoreError/Code/connectionLost`` (an outage) and is not written to.
    func sendingOnlyIfOpen<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(ConnectionLoopExecutor(eventLoop)) {
            assert(eventLoop.inEventLoop, "the check and the first write must run on the connection's loop")
            try requireOpen()
            return try await body(self)
        }
    }
}
