/// One operation a service offers over the broker, with its typed request and reply.
///
/// Declared once here, used by the gateway (to call) and by the service (to handle), so the two
/// cannot drift apart.
public protocol BusOperation: Sendable {
    /// The request payload (frame 3).
    associatedtype Request: Codable & Sendable
    /// The reply payload on success.
    associatedtype Reply: Codable & Sendable
    /// The operation name (frame 1), e.g. `login`.
    static var name: String { get }
}

/// An operation that belongs to one service.
public protocol ServiceOperation: BusOperation {
    /// The MDP service name of its owner, e.g. `auth`.
    static var service: ServiceName { get }
}

/// The MDP service names of Backplane's workers.
public struct ServiceName: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let auth = ServiceName("auth")
    public static let orders = ServiceName("orders")
    public static let printing = ServiceName("printing")
    public static let routing = ServiceName("routing")
    public static let notify = ServiceName("notify")

    public var description: String { rawValue }
}

/// A request with nothing in it.
public struct Empty: Codable, Hashable, Sendable {
    public init() {}
}
