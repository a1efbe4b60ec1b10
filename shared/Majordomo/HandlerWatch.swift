import Synchronization
import ZeroMQ

/// The request handlers a worker is running, and since when: one still running after the
/// worker's stall limit is taken as stuck.
///
/// What gets stuck is a wait that nothing will ever end. PostgresNIO 1.33 is the known source: a
/// query written into a pooled connection in the instant after it closed is dropped without an
/// answer (vapor/postgres-nio#487, reverted in #501), and its caller waits for good, holding one
/// of the worker's slots. A process with such a handler is ended by the worker
/// (``MajordomoWorker``'s `onStall`) for its supervisor to start afresh, as a wedged event
/// consumer or job loop is.
final class HandlerWatch: Sendable {
    /// The oldest handler running, when it has run past the limit.
    struct Stall: Sendable, Equatable {
        /// The operation it serves (the request body's first frame, as text).
        let operation: String
        /// How long it has run, in ms.
        let runningMs: Int64
        /// How many handlers were running in all.
        let running: Int
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

    /// A handler for `operation` begins at `nowMs`; pass the token to ``end(_:)``.
    func begin(_ operation: Frame?, nowMs: Int64) -> UInt64 {
        state.withLock { state in
            state.next &+= 1
            state.running[state.next] = Running(sinceMs: nowMs, operation: operation)
            return state.next
        }
    }

    /// The handler of `token` returned.
    func end(_ token: UInt64) {
        _ = state.withLock { $0.running.removeValue(forKey: token) }
    }

    /// The oldest running handler when it has run `limitMs` or more at `nowMs`.
    func stalled(nowMs: Int64, limitMs: Int64) -> Stall? {
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
