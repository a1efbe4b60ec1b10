import CZeroMQ

/// Waits on several sockets and plain file descriptors at once (`zmq_poll`).
///
/// Like the sockets it polls, a poller belongs to one thread.
public struct Poller {
    private var items: [zmq_pollitem_t] = []

    /// An empty poller.
    public init() {}

    /// Watches `socket` for incoming messages; returns the slot to ask ``isReadable(_:)`` about.
    @discardableResult
    public mutating func add(_ socket: Socket) -> Int {
        items.append(zmq_pollitem_t(socket: socket.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0))
        return items.count - 1
    }

    /// Watches a file descriptor (for example a ``WakeSignal``) for readability.
    @discardableResult
    public mutating func add(fileDescriptor: Int32) -> Int {
        items.append(zmq_pollitem_t(socket: nil, fd: fileDescriptor, events: Int16(ZMQ_POLLIN), revents: 0))
        return items.count - 1
    }

    /// Blocks up to `timeoutMs` milliseconds (`-1`: forever) until a watched item is readable.
    ///
    /// - Returns: how many items are readable; `0` on time-out or when a signal interrupted the wait.
    @discardableResult
    public mutating func poll(timeoutMs: Int) throws(ZMQError) -> Int {
        let count = items.count
        let rc = items.withUnsafeMutableBufferPointer { zmq_poll($0.baseAddress, Int32(count), timeoutMs) }
        if rc < 0 {
            let error = ZMQError.last("poll")
            if error.code == .interrupted { return 0 }
            throw error
        }
        return Int(rc)
    }

    /// Whether slot `index` had input at the last ``poll(timeoutMs:)``.
    public func isReadable(_ index: Int) -> Bool {
        items[index].revents & Int16(ZMQ_POLLIN) != 0
    }
}
