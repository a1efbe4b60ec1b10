import NIOCore
import NIOPosix
import ZeroMQ

/// ZMTP 3.1 (NULL mechanism) as a DEALER on one connection: greeting and READY, PONG for PING,
/// and each whole message decoded (``ZMTPDecoder``) for its owner, which writes its own.
final class ZMTPDealerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private static let opening = ZMTPWire.opening(socketType: "DEALER")

    private let owner: BrokerConnection
    private var decoder = ZMTPDecoder()
    /// The frames of the message under way.
    private var frames: [Frame] = []

    init(owner: BrokerConnection) {
        self.owner = owner
    }

    func channelActive(context: ChannelHandlerContext) {
        owner.opened(context.channel)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: Self.opening)), promise: nil)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        owner.closed(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        let channel = context.channel
        var failure: ZMTPProtocolError?
        var pongs: [[UInt8]] = []
        // A local for the read: no exclusivity check per appended frame.
        var frames = self.frames
        self.frames = []
        defer { self.frames = frames }
        bytes.withUnsafeReadableBytes { raw in
            do throws(ZMTPProtocolError) {
                try decoder.decode(raw) { event in
                    switch event {
                    case .frame(let body, let more):
                        frames.append(MDP.frame(body))
                        if !more {
                            owner.received(frames, on: channel)
                            frames.removeAll(keepingCapacity: true)
                        }
                    case .ready:
                        owner.ready(channel)
                    case .ping(_, let pingContext):
                        pongs.append(ZMTPWire.command("PONG", Array(pingContext)))
                    case .greeting, .command:
                        break
                    }
                    return true
                }
            } catch {
                failure = error
            }
        }
        owner.readComplete(on: channel)
        if !pongs.isEmpty {
            for pong in pongs { context.write(wrapOutboundOut(ByteBuffer(bytes: pong)), promise: nil) }
            context.flush()
        }
        if let failure { owner.protocolError(failure, on: channel) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

extension ZMTPDealerHandler {
    /// Opens a DEALER connection to `target` on `eventLoop`, owned by `owner`: 2 s to connect,
    /// `TCP_NODELAY` (messages are small and each is waited for).
    static func connect(
        to target: MajordomoClient.Endpoint, on eventLoop: any EventLoop, owner: BrokerConnection
    ) -> EventLoopFuture<any Channel> {
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(.seconds(2))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ZMTPDealerHandler(owner: owner))
                }
            }
        return bootstrap.channelOption(.tcpOption(.tcp_nodelay), value: 1).connect(host: target.host, port: target.port)
    }
}
