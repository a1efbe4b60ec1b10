import Hummingbird
import NIOCore

/// The gateway's request context: Hummingbird's basic one plus the connection's peer address,
/// which the rate limits key on.
public struct GatewayRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer of the connection the request came on (a proxy's, behind one).
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
