import Synchronization

/// One socket on its own I/O thread, with an async face: ``send(_:)`` from any task, and
/// ``messages`` for what arrives. Used for the simple patterns (PUB, SUB) where the owner needs
/// no protocol logic on the I/O thread.
public final class SocketPump: Sendable {
    /// Sets the socket up on the I/O thread (connect, bind, subscribe).
    public typealias Setup = @Sendable (Socket) throws -> Void

    private let context: Context
    private let type: SocketType
    private let setup: Setup
    private let outbox = Mutex<(messages: [Message], stopped: Bool)>(([], false))
    private let wake = WakeSignal()
    private let inbound: AsyncStream<Message>.Continuation
    /// Messages the socket receives, in order; finishes when the pump stops.
    public let messages: AsyncStream<Message>
    private let name: String

    /// Creates a pump; the socket is made and set up when ``run()`` starts.
    public init(context: Context, type: SocketType, name: String, setup: @escaping Setup) {
        self.context = context
        self.type = type
        self.setup = setup
        self.name = name
        (messages, inbound) = AsyncStream.makeStream(of: Message.self, bufferingPolicy: .bufferingNewest(10_000))
    }

    /// Queues `message` for sending; dropped if the pump has stopped.
    public func send(_ message: Message) {
        outbox.withLock { if !$0.stopped { $0.messages.append(message) } }
        wake.signal()
    }

    /// Stops the pump; ``run()`` returns after sending what was queued.
    public func stop() {
        outbox.withLock { $0.stopped = true }
        wake.signal()
    }

    /// Runs the socket loop until ``stop()``.
    public func run() async throws {
        try await IOThread.run(name: name) { [self] in try loop() }
    }

    private func loop() throws {
        let socket = try context.socket(type)
        defer {
            socket.close()
            inbound.finish()
        }
        try setup(socket)
        var poller = Poller()
        let socketSlot = poller.add(socket)
        let wakeSlot = poller.add(fileDescriptor: wake.fileDescriptor)
        let canReceive = type != .pub
        while true {
            let (pending, stopped) = outbox.withLock { state in
                defer { state.messages.removeAll() }
                return (state.messages, state.stopped)
            }
            for message in pending { _ = try socket.send(message, dontWait: true) }
            if stopped { return }
            try poller.poll(timeoutMs: 1000)
            if poller.isReadable(wakeSlot) { wake.drain() }
            if canReceive && poller.isReadable(socketSlot) {
                while let message = try socket.receive(dontWait: true) { inbound.yield(message) }
            }
        }
    }
}
