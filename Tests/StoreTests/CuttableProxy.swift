import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy on a loopback port in front of PostgreSQL whose connections a test can cut, as a
/// crash of the server or of the network between would: the client sees its socket closed with no
/// error message from the server first (unlike `pg_terminate_backend`, whose FATAL message arrives
/// before the close).
final class CuttableProxy: Sendable {
    let port: Int
    private let server: any Channel
    private let open = Mutex<[any Channel]>([])

    private init(port: Int, server: any Channel) {
        self.port = port
        self.server = server
    }

    /// A proxy to `host:targetPort`, on a free loopback port.
    static func start(to host: String, port targetPort: Int) async throws -> CuttableProxy {
        let box = Mutex<CuttableProxy?>(nil)
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                let proxy = box.withLock { $0 }
                return ClientBootstrap(group: inbound.eventLoop)
                    .connect(host: host, port: targetPort)
                    .flatMap { outbound in
                        proxy?.open.withLock { $0 += [inbound, outbound] }
                        return inbound.pipeline.addHandler(Glue(peer: outbound)).flatMap {
                            outbound.pipeline.addHandler(Glue(peer: inbound))
                        }
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let proxy = CuttableProxy(port: server.localAddress?.port ?? 0, server: server)
        box.withLock { $0 = proxy }
        return proxy
    }

    /// Closes every connection through the proxy, both sides, at once; new ones are still accepted.
    func cutAll() async {
        let channels = open.withLock { channels in
            defer { channels = [] }
            return channels
        }
        for channel in channels { try? await channel.close() }
    }

    func stop() async {
        await cutAll()
        try? await server.close()
    }

    /// Copies bytes to the peer channel and closes it when this side closes.
    private final class Glue: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let peer: any Channel
        init(peer: any Channel) { self.peer = peer }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            peer.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            peer.close(promise: nil)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
