import CZeroMQ

extension Socket {
    /// Sets an integer option (`ZMQ_LINGER`, `ZMQ_SNDHWM`, ...).
    public func setOption(_ option: Int32, _ value: Int32) throws(ZMQError) {
        var value = value
        let handle = try live("setsockopt")
        if zmq_setsockopt(handle, option, &value, MemoryLayout<Int32>.size) != 0 {
            throw ZMQError.last("setsockopt \(option)")
        }
    }

    /// Sets a binary option (`ZMQ_ROUTING_ID`, `ZMQ_SUBSCRIBE`, ...).
    public func setOption(_ option: Int32, bytes: [UInt8]) throws(ZMQError) {
        let handle = try live("setsockopt")
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
        let handle = try live("getsockopt")
        var buffer = [CChar](repeating: 0, count: 256)
        var size = buffer.count
        if zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size) != 0 {
            throw ZMQError.last("getsockopt ZMQ_LAST_ENDPOINT")
        }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
