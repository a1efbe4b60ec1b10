import Logging
import NIOCore
import ZeroMQ

/// One connection to the broker, kept up on an event loop: the reconnect rules the client's
/// ``BrokerLink`` and the worker's ``WorkerLink`` share. A failed dial is tried again after
/// 100 ms, doubling to 1 s; a peer that does not finish the ZMTP handshake within 5 s, or breaks
/// the protocol, is dropped and dialled again; so is a lost connection, at once. Subclasses
/// override the hooks; every call is on ``eventLoop``.
class BrokerConnection: @unchecked Sendable {
    let eventLoop: any EventLoop
    let target: MajordomoClient.Endpoint
    let logger: Logger
    /// Said in every log line about the connection: the broker, and the worker's service.
    let metadata: Logger.Metadata
    /// The connection whose handshake is done.
    private(set) var channel: (any Channel)?
    /// The connection from TCP connect on, handshake done or not.
    private(set) var live: (any Channel)?
    private(set) var connecting = false
    /// Set for good when the owner stops: nothing is dialled any more.
    var stopped = false
    private var unreachable = false
    private var retryDelayMs: Int64 = 100

    static let handshakeTimeout = TimeAmount.seconds(5)

    init(eventLoop: any EventLoop, target: MajordomoClient.Endpoint, logger: Logger, metadata: Logger.Metadata) {
        self.eventLoop = eventLoop
        self.target = target
        self.logger = logger
        self.metadata = metadata.merging(["broker": "\(target)"]) { $1 }
    }

    // MARK: Hooks

    /// The broker's ZMTP READY on `channel`; `afterOutage`: the broker could not be reached or
    /// the connection was lost before.
    func connected(_ channel: any Channel, afterOutage: Bool) {}
    /// `channel` ended while not stopped; `wasReady`: its handshake was done. Returns whether to
    /// dial again.
    func lost(_ channel: any Channel, wasReady: Bool) -> Bool { true }
    func received(_ frames: [Frame], on channel: any Channel) {}
    func readComplete(on channel: any Channel) {}

    // MARK: Rules

    func connect() {
        guard !stopped, !connecting, live == nil else { return }
        connecting = true
        ZMTPDealerHandler.connect(to: target, on: eventLoop, owner: self).whenComplete { [self] result in
            connecting = false
            guard case .failure(let error) = result else { return }
            if !unreachable {
                unreachable = true
                logger.warning("cannot reach the broker; retrying", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            }
            retryLater()
        }
    }

    private func retryLater() {
        guard !stopped else { return }
        let delay = retryDelayMs
        retryDelayMs = min(retryDelayMs * 2, 1000)
        eventLoop.scheduleTask(in: .milliseconds(delay)) { [self] in connect() }
    }

    /// Drops the connection and dials again at once.
    func reconnect(reason: String) {
        logger.warning("reconnecting to the broker", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
        let old = live
        live = nil
        channel = nil
        old?.close(promise: nil)
        connect()
    }

    func opened(_ channel: any Channel) {
        guard !stopped, live == nil else {
            channel.close(promise: nil)
            return
        }
        live = channel
        eventLoop.scheduleTask(in: Self.handshakeTimeout) { [self] in
            guard live === channel, self.channel !== channel else { return }
            logger.warning("the broker did not finish the ZMTP handshake; reconnecting", metadata: metadata)
            channel.close(promise: nil)
        }
    }

    func ready(_ channel: any Channel) {
        guard live === channel, !stopped else { return }
        self.channel = channel
        retryDelayMs = 100
        let afterOutage = unreachable
        unreachable = false
        connected(channel, afterOutage: afterOutage)
    }

    func closed(_ channel: any Channel) {
        guard live === channel else { return }
        live = nil
        let wasReady = self.channel === channel
        self.channel = nil
        guard !stopped else { return }
        if wasReady { unreachable = true }
        if lost(channel, wasReady: wasReady) { retryLater() }
    }

    func protocolError(_ error: ZMTPProtocolError, on channel: any Channel) {
        logger.warning(
            "the broker broke the ZMTP protocol; reconnecting", metadata: metadata.merging(["error": "\(error)"]) { $1 })
        channel.close(promise: nil)
    }
}
