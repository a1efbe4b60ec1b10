import CZeroMQ

/// One frame of a multipart message.
public typealias Frame = [UInt8]

/// A multipart message: the frames libzmq delivers atomically together.
public typealias Message = [Frame]

/// A libzmq socket.
///
/// Sockets are not thread safe: a socket is created, used and closed on one thread (the I/O
/// thread of whatever owns it). It holds its ``Context`` alive and closes itself in `deinit`
/// if ``close()`` was not called first.
public final class Socket {
    let context: Context
    /// Read on every send and receive; one thread uses the socket, so the read skips the run-time
    /// exclusivity check.
    @exclusivity(unchecked) private(set) var handle: UnsafeMutableRawPointer?
    /// The pattern this socket was made with.
    public let type: SocketType

    init(context: Context, type: SocketType) throws(ZMQError) {
        guard let handle = zmq_socket(context.handle, type.raw) else {
            throw ZMQError.last("socket")
        }
        self.context = context
        self.handle = handle
        self.type = type
        try setOption(ZMQ_LINGER, 0)
    }

    deinit { close() }

    /// Closes the socket, dropping unsent messages. Safe to call more than once.
    public func close() {
        if let handle {
            zmq_close(handle)
            self.handle = nil
        }
    }

    /// Whether ``close()`` has been called.
    public var isClosed: Bool { handle == nil }

    func live(_ operation: String) throws(ZMQError) -> UnsafeMutableRawPointer {
        guard let handle else { throw ZMQError(errno: ENOTSOCK, operation: operation) }
        return handle
    }

    /// Binds to `endpoint` (`tcp://127.0.0.1:5555`, `tcp://127.0.0.1:*`, `inproc://name`, ...).
    public func bind(_ endpoint: String) throws(ZMQError) {
        if zmq_bind(try live("bind"), endpoint) != 0 { throw ZMQError.last("bind \(endpoint)") }
    }

    /// Connects to `endpoint`; libzmq reconnects by itself when the peer goes away.
    public func connect(_ endpoint: String) throws(ZMQError) {
        if zmq_connect(try live("connect"), endpoint) != 0 { throw ZMQError.last("connect \(endpoint)") }
    }

    /// Sends `message` as one multipart message.
    ///
    /// - Returns: `false` when `dontWait` is set and the message could not be queued now
    ///   (no connected peer with `IMMEDIATE`, or the high-water mark is reached).
    @discardableResult
    public func send(_ message: Message, dontWait: Bool = false) throws(ZMQError) -> Bool {
        let handle = try live("send")
        for index in message.indices {
            // libzmq queues a multipart message whole: only its first frame can fail to be queued.
            var flags = index < message.count - 1 ? ZMQ_SNDMORE : 0
            if dontWait { flags |= ZMQ_DONTWAIT }
            while message[index].withUnsafeBytes({ zmq_send(handle, $0.baseAddress, $0.count, flags) }) < 0 {
                let error = ZMQError.last("send")
                if error.code == .interrupted { continue }
                if error.code == .wouldBlock && index == 0 { return false }
                throw error
            }
        }
        return true
    }

    /// Receives one multipart message.
    ///
    /// - Returns: `nil` when `dontWait` is set and nothing is waiting.
    public func receive(dontWait: Bool = false) throws(ZMQError) -> Message? {
        let handle = try live("receive")
        var message: Message = []
        message.reserveCapacity(8)  // MDP's messages have up to 8 frames: one allocation, not four
        var part = zmq_msg_t()
        zmq_msg_init(&part)
        defer { zmq_msg_close(&part) }
        while true {
            let rc = zmq_msg_recv(&part, handle, dontWait && message.isEmpty ? ZMQ_DONTWAIT : 0)
            if rc < 0 {
                let error = ZMQError.last("receive")
                if error.code == .interrupted { continue }
                if error.code == .wouldBlock && message.isEmpty { return nil }
                throw error
            }
            let size = zmq_msg_size(&part)
            if size == 0 {
                message.append([])
            } else {
                let data = zmq_msg_data(&part)!.assumingMemoryBound(to: UInt8.self)
                message.append(Array(UnsafeBufferPointer(start: data, count: size)))
            }
            if zmq_msg_more(&part) == 0 { return message }
        }
    }
}
