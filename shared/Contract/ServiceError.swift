/// A failure as it travels on the wire: `{"code", "message", "details"}`.
///
/// Services throw it; the gateway maps `code` to an HTTP status and sends the body as is.
public struct ServiceError: Error, Codable, Hashable, Sendable, CustomStringConvertible {
    /// What a client can act on.
    public var code: ErrorCode
    /// A sentence for a person.
    public var message: String
    /// Structured facts, e.g. the field that failed or `retryAfterSeconds` for `locked`.
    public var details: [String: JSONValue]?

    /// Creates an error.
    public init(_ code: ErrorCode, _ message: String, details: [String: JSONValue]? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// Seconds to wait before retrying, for `locked` and `rate_limited` (sent as `Retry-After`).
    public var retryAfterSeconds: Int? {
        if case .number(let seconds) = details?["retryAfterSeconds"] { return Int(seconds.rounded(.up)) }
        return nil
    }

    public var description: String { "\(code): \(message)" }
}

extension ServiceError {
    /// A 400 naming the offending field.
    public static func invalidArgument(_ message: String, field: String? = nil) -> ServiceError {
        ServiceError(.invalidArgument, message, details: field.map { ["field": .string($0)] })
    }

    /// A 404 for a missing thing.
    public static func notFound(_ message: String) -> ServiceError { ServiceError(.notFound, message) }

    /// A 500 whose message is safe to show; the cause goes to the log only.
    public static func `internal`(requestId: String) -> ServiceError {
        ServiceError(.internal, "internal error; quote request id \(requestId) when reporting it")
    }
}
