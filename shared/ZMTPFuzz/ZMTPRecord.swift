import ZeroMQ

/// A ``ZMTPEvent`` with its bytes copied out, so transcripts of one stream cut in different places
/// can be kept and compared.
public enum ZMTPRecord: Equatable, Sendable, CustomStringConvertible {
    /// A greeting of this version.
    case greeting(major: UInt8, minor: UInt8)
    /// A READY and its properties.
    case ready([String: [UInt8]])
    /// A PING with its TTL and context.
    case ping(ttl: UInt16, context: [UInt8])
    /// A command a ROUTER ignores, by name.
    case command(name: [UInt8])
    /// A message frame.
    case frame([UInt8], more: Bool)

    /// The event, copied.
    public init(_ event: ZMTPEvent) {
        switch event {
        case .greeting(let major, let minor): self = .greeting(major: major, minor: minor)
        case .ready(let properties): self = .ready(properties)
        case .ping(let ttl, let context): self = .ping(ttl: ttl, context: Array(context))
        case .command(let name): self = .command(name: Array(name))
        case .frame(let body, let more): self = .frame(Array(body), more: more)
        }
    }

    public var description: String {
        switch self {
        case .greeting(let major, let minor): "greeting \(major).\(minor)"
        case .ready(let properties): "READY \(properties.keys.sorted())"
        case .ping(let ttl, let context): "PING ttl \(ttl), \(context.count)-byte context"
        case .command(let name): "command \(String(decoding: name, as: UTF8.self))"
        case .frame(let body, let more): "frame of \(body.count) bytes\(more ? ", more" : "")"
        }
    }
}
