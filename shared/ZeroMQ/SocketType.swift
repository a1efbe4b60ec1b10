import CZeroMQ

/// The ZeroMQ socket patterns Backplane uses.
public enum SocketType: Sendable {
    case router, dealer, pub, sub, xpub, xsub, pair, req, rep

    var raw: Int32 {
        switch self {
        case .router: ZMQ_ROUTER
        case .dealer: ZMQ_DEALER
        case .pub: ZMQ_PUB
        case .sub: ZMQ_SUB
        case .xpub: ZMQ_XPUB
        case .xsub: ZMQ_XSUB
        case .pair: ZMQ_PAIR
        case .req: ZMQ_REQ
        case .rep: ZMQ_REP
        }
    }
}
