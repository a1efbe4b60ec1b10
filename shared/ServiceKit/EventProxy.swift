import Logging
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// The event proxy: publishers connect to its XSUB endpoint, subscribers to its XPUB one, and
/// messages and subscriptions pass through on a thread of its own. Bound in `init`, wildcard
/// ports resolved.
public final class EventProxy: Service, Sendable {
    public let publishEndpoint: String
    public let subscribeEndpoint: String
    private let owned: Owned
    private let wake = WakeSignal()
    private let stopping = Atomic<Bool>(false)

    /// The sockets, used only by the thread of ``run()`` once it starts; thread start is the
    /// memory barrier libzmq requires when a socket changes threads.
    private struct Owned: @unchecked Sendable {
        let xsub: Socket
        let xpub: Socket
    }

    public init(publish: String, subscribe: String, context: Context) throws {
        let xsub = try context.socket(.xsub)
        try xsub.bind(publish)
        let xpub = try context.socket(.xpub)
        try xpub.bind(subscribe)
        publishEndpoint = try xsub.lastEndpoint()
        subscribeEndpoint = try xpub.lastEndpoint()
        owned = Owned(xsub: xsub, xpub: xpub)
    }

    /// Passes messages on until ``stop()``, cancellation or graceful shutdown.
    public func run() async throws {
        try await withTaskCancellationOrGracefulShutdownHandler {
            try await IOThread.run(name: "event-proxy") { [self] in try loop() }
        } onCancelOrGracefulShutdown: {
            self.stop()
        }
    }

    public func stop() {
        stopping.store(true, ordering: .releasing)
        wake.signal()
    }

    private func loop() throws {
        let (xsub, xpub) = (owned.xsub, owned.xpub)
        defer {
            xsub.close()
            xpub.close()
        }
        var poller = Poller()
        let inbound = poller.add(xsub)
        let outbound = poller.add(xpub)
        let wakeSlot = poller.add(fileDescriptor: wake.fileDescriptor)
        while !stopping.load(ordering: .acquiring) {
            try poller.poll(timeoutMs: -1)
            if poller.isReadable(wakeSlot) { wake.drain() }
            if poller.isReadable(inbound) { try Self.forward(from: xsub, to: xpub) }
            if poller.isReadable(outbound) { try Self.forward(from: xpub, to: xsub) }
        }
    }

    private static func forward(from source: Socket, to destination: Socket) throws {
        for _ in 0..<10_000 {
            guard let message = try source.receive(dontWait: true) else { return }
            _ = try destination.send(message, dontWait: true)
        }
    }
}
