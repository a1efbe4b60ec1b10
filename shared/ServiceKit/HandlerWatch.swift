import Majordomo
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// The request handlers a worker is running, and since when. One running past the limit is stuck
/// on a wait nothing will end (a query on a connection that went away unnoticed, say): `onStall`
/// is told, by default a `critical` line and exit status 75 for the supervisor to restart the
/// process (``WorkerHost``).
public final class HandlerWatch: Service, Sendable {
    public struct Stall: Sendable, Equatable {
        /// The request body's first frame, as text.
        public let operation: String
        public let runningMs: Int64
        /// Handlers running in all.
        public let running: Int
    }

    private struct Running {
        let sinceMs: Int64
        let operation: Frame?
    }

    private struct State {
        var next: UInt64 = 0
        var running: [UInt64: Running] = [:]
    }

    private let state = Mutex(State())
    private let limitMs: Int64
    private let onStall: @Sendable (Stall) -> Void

    public init(limitMs: Int64, onStall: @escaping @Sendable (Stall) -> Void) {
        self.limitMs = max(1, limitMs)
        self.onStall = onStall
    }

    /// `handler`, each of its runs watched.
    public func watching(_ handler: @escaping MajordomoWorker.Handler) -> MajordomoWorker.Handler {
        { [self] body in
            let token = begin(body.first, nowMs: Monotonic.milliseconds())
            defer { end(token) }
            return await handler(body)
        }
    }

    /// Looks every quarter of the limit (at most every 5 s) until graceful shutdown.
    public func run() async throws {
        await cancelWhenGracefulShutdown { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(min(limitMs / 4, 5_000)))
                if let stall = stalled(nowMs: Monotonic.milliseconds()) { onStall(stall) }
            }
        }
    }

    func begin(_ operation: Frame?, nowMs: Int64) -> UInt64 {
        state.withLock { state in
            state.next &+= 1
            state.running[state.next] = Running(sinceMs: nowMs, operation: operation)
            return state.next
        }
    }

    func end(_ token: UInt64) {
        _ = state.withLock { $0.running.removeValue(forKey: token) }
    }

    /// The oldest running handler when it has run for the limit or more at `nowMs`.
    func stalled(nowMs: Int64) -> Stall? {
        state.withLock { state in
            guard let oldest = state.running.values.min(by: { $0.sinceMs < $1.sinceMs }),
                nowMs - oldest.sinceMs >= limitMs
            else { return nil }
            return Stall(
                operation: oldest.operation.map { String(decoding: $0.prefix(64), as: UTF8.self) } ?? "",
                runningMs: nowMs - oldest.sinceMs, running: state.running.count)
        }
    }
}
