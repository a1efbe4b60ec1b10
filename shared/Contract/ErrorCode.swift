/// The error codes of the wire contract; every service answers failures with one of these, and
/// the gateway turns each into its HTTP status.
public struct ErrorCode: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The request is malformed or a field is out of range (400).
    public static let invalidArgument = ErrorCode(rawValue: "invalid_argument")
    /// No valid credentials (401).
    public static let unauthenticated = ErrorCode(rawValue: "unauthenticated")
    /// A payment was declined or failed; `details.reason` says why, e.g. `card_declined` (402).
    public static let paymentRequired = ErrorCode(rawValue: "payment_required")
    /// Authenticated, but not allowed (403).
    public static let permissionDenied = ErrorCode(rawValue: "permission_denied")
    /// The thing does not exist (404).
    public static let notFound = ErrorCode(rawValue: "not_found")
    /// The path exists but not with this method; the gateway's answer lists the methods in `Allow` (405).
    public static let methodNotAllowed = ErrorCode(rawValue: "method_not_allowed")
    /// The request conflicts with the current state, e.g. an idempotency key reused with another body (409).
    public static let conflict = ErrorCode(rawValue: "conflict")
    /// The thing being created exists already (409).
    public static let alreadyExists = ErrorCode(rawValue: "already_exists")
    /// The state does not allow it, e.g. an invalid order transition (422).
    public static let failedPrecondition = ErrorCode(rawValue: "failed_precondition")
    /// A conditional request's `If-Match` names a version that is no longer current, e.g. a
    /// draft another device changed since this one read it (412).
    public static let preconditionFailed = ErrorCode(rawValue: "precondition_failed")
    /// A change that must be conditional came without `If-Match` (428).
    public static let preconditionRequired = ErrorCode(rawValue: "precondition_required")
    /// Temporarily locked, e.g. a login hold; carries a retry-after (423).
    public static let locked = ErrorCode(rawValue: "locked")
    /// Too many requests (429).
    public static let rateLimited = ErrorCode(rawValue: "rate_limited")
    /// No worker, or the broker is down (503).
    public static let unavailable = ErrorCode(rawValue: "unavailable")
    /// No answer before the deadline (504).
    public static let deadlineExceeded = ErrorCode(rawValue: "deadline_exceeded")
    /// A bug or an unexpected failure; details are in the log under the request id (500).
    public static let `internal` = ErrorCode(rawValue: "internal")

    /// Every code the contract defines.
    public static let all: [ErrorCode] = [
        .invalidArgument, .unauthenticated, .paymentRequired, .permissionDenied, .notFound, .methodNotAllowed,
        .conflict, .alreadyExists, .preconditionFailed, .failedPrecondition, .locked, .preconditionRequired,
        .rateLimited, .unavailable, .deadlineExceeded, .internal,
    ]

    /// The HTTP status the gateway answers with; an unknown code is a 500.
    public var httpStatus: Int {
        switch self {
        case .invalidArgument: 400
        case .unauthenticated: 401
        case .paymentRequired: 402
        case .permissionDenied: 403
        case .notFound: 404
        case .methodNotAllowed: 405
        case .conflict, .alreadyExists: 409
        case .preconditionFailed: 412
        case .failedPrecondition: 422
        case .preconditionRequired: 428
        case .locked: 423
        case .rateLimited: 429
        case .unavailable: 503
        case .deadlineExceeded: 504
        default: 500
        }
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}
