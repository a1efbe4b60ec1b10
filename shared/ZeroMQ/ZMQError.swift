import CZeroMQ

/// A failed libzmq call: the `errno` it left, mapped once here into a code callers can act on.
public struct ZMQError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, in terms a caller can branch on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let raw: String
        /// The operation would block (`EAGAIN`): nothing to receive, or the send queue is full.
        public static let wouldBlock = Code(raw: "would_block")
        /// The context was terminated (`ETERM`); the socket must be closed.
        public static let terminated = Code(raw: "terminated")
        /// A blocking call was interrupted by a signal (`EINTR`).
        public static let interrupted = Code(raw: "interrupted")
        /// A ROUTER socket with `ROUTER_MANDATORY` had no peer with that identity (`EHOSTUNREACH`).
        public static let unreachable = Code(raw: "unreachable")
        /// An endpoint was malformed or the address is in use.
        public static let badEndpoint = Code(raw: "bad_endpoint")
        /// Anything else; `errno` says which.
        public static let other = Code(raw: "other")
        public var description: String { raw }
    }

    /// The mapped code.
    public let code: Code
    /// The raw `errno` value.
    public let errno: Int32
    /// What was being attempted, e.g. `bind tcp://127.0.0.1:5555`.
    public let operation: String

    /// Wraps an `errno` from a failed call.
    public init(errno: Int32, operation: String) {
        self.errno = errno
        self.operation = operation
        switch errno {
        case EAGAIN: code = .wouldBlock
        case ETERM: code = .terminated
        case EINTR: code = .interrupted
        case EHOSTUNREACH: code = .unreachable
        case EADDRINUSE, EINVAL, EPROTONOSUPPORT, EADDRNOTAVAIL, ENODEV: code = .badEndpoint
        default: code = .other
        }
    }

    /// The error for the `errno` libzmq has just set.
    static func last(_ operation: String) -> ZMQError {
        ZMQError(errno: zmq_errno(), operation: operation)
    }

    public var description: String {
        "\(operation): \(String(cString: zmq_strerror(errno))) (\(code))"
    }
}
