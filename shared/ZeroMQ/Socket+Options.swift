import CZeroMQ

extension Socket {
    /// Sets an integer option (`ZMQ_LINGER`, `ZMQ_SNDHWM`, ...).
    public func setOption(_ option: Int32, _ value: Int32) throws(ZMQError) {
        var value = value
        let handle = try liveHandle("setsockopt")
        if zmq_setsockopt(handle, option, &value, MemoryLayout<Int32>.size) != 0 {
            throw ZMQError.last("setsockopt \(option)")
        }
    }

    /// Sets a binary option (`ZMQ_ROUTING_ID`, `ZMQ_SUBSCRIBE`, ...).
    public func setOption(_ option: Int32, bytes: [UInt8]) throws(ZMQError) {
        let handle = try liveHandle("setsockopt")
        let rc = bytes.withUnsafeBytes { zmq_setsockopt(handle, option, $0.baseAddress, $0.count) }
        if rc != 0 { throw ZMQError.last("setsockopt \(option)") }
    }

    /// Subscribes a SUB socket to messages whose first frame starts with `prefix`.
    public func subscribe(_ prefix: String = "") throws(ZMQError) {
        try setOption(ZMQ_SUBSCRIBE, bytes: Array(prefix.utf8))
    }

    /// Queue at most this many messages per peer before sends block or fail.
    public func setHighWaterMarks(send: Int32, receive: Int32) throws(ZMQError) {
        try setOption(ZMQ_SNDHWM, send)
        try setOption(ZMQ_RCVHWM, receive)
    }

    /// The endpoint the socket last bound, with a wildcard port resolved (`tcp://127.0.0.1:41234`).
    public func lastEndpoint() throws(ZMQError) -> String {
        let handle = try liveHandle("getsockopt")
        var buffer = [CChar](repeating: 0, count: 256)
        var size = buffer.count
        if zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size) != 0 {
            throw ZMQError.last("getsockopt ZMQ_LAST_ENDPOINT")
        }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Reports connection events of this socket on a PAIR socket connected to `endpoint`.
    public func monitor(_ endpoint: String, events: Int32) throws(ZMQError) {
        let handle = try liveHandle("monitor")
        if zmq_socket_monitor(handle, endpoint, events) != 0 { throw ZMQError.last("monitor \(endpoint)") }
    }

    private func liveHandle(_ operation: String) throws(ZMQError) -> UnsafeMutableRawPointer {
        guard let handle else { throw ZMQError(errno: ENOTSOCK, operation: operation) }
        return handle
    }
}
