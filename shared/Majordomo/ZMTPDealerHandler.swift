import NIOCore
import NIOPosix
import ZeroMQ

/// What a DEALER connection spoken on an event loop (``ZMTPDealerHandler``) tells the object that
/// owns it: the client's ``BrokerLink`` or the worker's ``WorkerLink``. Every call is on the
/// connection's event loop.
protocol ZMTPDealerOwner: AnyObject, Sendable {
    /// TCP is connected; the greeting is on its way.
    func opened(_ channel: any Channel)
    /// The connection is gone.
    func closed(_ channel: any Channel)
    /// The peer's READY: the handshake is done.
    func ready(_ channel: any Channel)
    /// One whole message from the peer.
    func received(_ frames: [Frame], on channel: any Channel)
    /// Every message of one read has been passed to ``received(_:on:)``.
    func readComplete(on channel: any Channel)
    /// The peer broke ZMTP; the owner decides what to log and closes the connection.
    func protocolError(_ error: ZMTPProtocolError, on channel: any Channel)
}

extension ZMTPDealerOwner {
    func readComplete(on channel: any Channel) {}
}

/// Speaks ZMTP 3.1 (NULL mechanism) as a DEALER on one connection: sends the greeting and READY,
/// answers PING with PONG, decodes the peer's bytes with ``ZMTPDecoder`` and hands each whole
/// message to its owner. Writing messages is the owner's business (``WorkerLink/encode(_:_:)``).
final class ZMTPDealerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private static let opening = ZMTPWire.opening(socketType: "DEALER")

    private let owner: any ZMTPDealerOwner
    private var decoder = ZMTPDecoder()
    /// The frames of the message under way.
    private var frames: [Frame] = []

    init(owner: any ZMTPDealerOwner) {
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
        // The message under way in a local for the read: frames appended to a property from
        // within the decoder's closure would each pay a dynamic exclusivity check.
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
    /// `TCP_NODELAY` over TCP (messages are small and each is waited for).
    static func connect(
        to target: EventLoopMajordomoClient.Endpoint, on eventLoop: any EventLoop, owner: any ZMTPDealerOwner
    ) -> EventLoopFuture<any Channel> {
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(.seconds(2))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ZMTPDealerHandler(owner: owner))
                }
            }
        switch target {
        case .tcp(let host, let port):
            return bootstrap.channelOption(.tcpOption(.tcp_nodelay), value: 1).connect(host: host, port: port)
        case .unix(let path):
            return bootstrap.connect(unixDomainSocketPath: path)
        }
    }
}
