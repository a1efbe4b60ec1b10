import NIOCore
import NIOPosix
import Synchronization

/// A task executor (SE-0417) that runs Swift concurrency jobs on the threads of a NIO event loop
/// group instead of the global executor's threads.
///
/// A request served with NIO and `async` code otherwise crosses threads at every `await` on a
/// future: the socket is read on an event loop, the handler runs on a global-executor thread,
/// the write goes back to the loop, each crossing a wake-up (a futex or an `eventfd` write and a
/// context switch). With this executor preferred (`withTaskExecutorPreference` or a task
/// group's `addTask(executorPreference:)`), a job enqueued from one of the group's loops runs on
/// that same loop, after the I/O at hand, with no wake-up at all; a job enqueued from any other
/// thread (a timer, a ZeroMQ reader) goes to the loops in turn.
///
/// What runs here must not block: a job that sleeps or spins holds up every connection of its
/// loop, as a blocking `ChannelHandler` would.
final class EventLoopTaskExecutor: TaskExecutor, Sendable {
    private let loops: [any EventLoop]
    private let turn = Atomic<Int>(0)

    /// An executor over every loop of `group` (NIO's singleton group by default: the one
    /// Hummingbird, PostgresNIO and AsyncHTTPClient use unless told otherwise).
    init(group: MultiThreadedEventLoopGroup = .singleton) {
        var loops: [any EventLoop] = []
        for loop in group.makeIterator() { loops.append(loop) }
        precondition(!loops.isEmpty, "an event loop group without loops")
        self.loops = loops
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }

    /// The loop the caller runs on when it is one of ours, else the next one in turn.
    var loop: any EventLoop {
        for loop in loops where loop.inEventLoop { return loop }
        return loops[(turn.wrappingAdd(1, ordering: .relaxed).oldValue & Int.max) % loops.count]
    }
}
