import CZeroMQ

/// A libzmq context: the I/O threads every socket of the process shares.
///
/// Each ``Socket`` keeps a strong reference to the context that made it, so the context is
/// terminated only after the last socket has been closed (`zmq_ctx_term` blocks while sockets
/// are open, which would otherwise hang shutdown).
public final class Context: Sendable {
    // libzmq contexts are thread safe; the pointer itself never changes after init.
    nonisolated(unsafe) let handle: UnsafeMutableRawPointer

    /// Creates a context with `ioThreads` background I/O threads.
    public init(ioThreads: Int32 = 1) {
        guard let handle = zmq_ctx_new() else { fatalError("zmq_ctx_new failed: out of memory") }
        zmq_ctx_set(handle, ZMQ_IO_THREADS, ioThreads)
        zmq_ctx_set(handle, ZMQ_MAX_SOCKETS, 8192)
        self.handle = handle
    }

    deinit {
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }

    /// Makes a socket of `type` owned by the calling thread until it is handed to another.
    public func socket(_ type: SocketType) throws(ZMQError) -> Socket {
        try Socket(context: self, type: type)
    }
}
