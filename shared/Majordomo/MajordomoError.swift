/// Why a request over the broker did not get a reply.
public struct MajordomoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in terms a caller can branch on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let raw: String
        /// The broker is not reachable, or it has lost the request (it restarted).
        public static let unavailable = Code(raw: "unavailable")
        /// No reply arrived before the request's deadline.
        public static let deadlineExceeded = Code(raw: "deadline_exceeded")
        /// The client is shutting down.
        public static let shutdown = Code(raw: "shutdown")
        public var description: String { raw }
    }

    public let code: Code
    /// A sentence for a person: what happened and where.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
