import CZeroMQ
import Testing
import ZeroMQ

@Suite("ZeroMQ sockets")
struct SocketTests {
    @Test("a multipart message arrives whole, empty and binary frames included")
    func multipartRoundTrip() throws {
        let context = Context()
        let router = try context.socket(.router)
        try router.bind("tcp://127.0.0.1:*")
        let dealer = try context.socket(.dealer)
        try dealer.connect(try router.lastEndpoint())
        let frames: Message = [Array("hello".utf8), [], [0x00, 0xff, 0x7f], Array(repeating: 0xab, count: 100_000)]
        try dealer.send(frames)
        let received = try #require(try router.receive())
        #expect(received.count == frames.count + 1, "ROUTER prepends the sender's identity")
        #expect(Array(received.dropFirst()) == frames)
        try router.send(received)
        #expect(try dealer.receive() == frames)
        dealer.close()
        router.close()
    }

    @Test("receive with dontWait returns nil when nothing waits")
    func nonBlockingReceive() throws {
        let context = Context()
        let pull = try context.socket(.dealer)
        try pull.bind("inproc://empty")
        #expect(try pull.receive(dontWait: true) == nil)
    }

    @Test("errno is mapped once: a bad endpoint and an address in use are badEndpoint")
    func errorMapping() throws {
        let context = Context()
        let socket = try context.socket(.router)
        #expect(throws: ZMQError.self) { try socket.bind("nonsense://x") }
        do {
            try socket.bind("nonsense://x")
        } catch {
            #expect(error.code == .badEndpoint)
            #expect(error.description.contains("bind nonsense://x"))
        }
        try socket.bind("tcp://127.0.0.1:*")
        let other = try context.socket(.router)
        do {
            try other.bind(try socket.lastEndpoint())
            Issue.record("binding a used port must fail")
        } catch {
            #expect(error.code == .badEndpoint)
        }
    }

    @Test("a ROUTER with ROUTER_MANDATORY reports an unknown peer as unreachable")
    func unreachablePeer() throws {
        let context = Context()
        let router = try context.socket(.router)
        try router.setOption(ZMQ_ROUTER_MANDATORY, 1)
        try router.bind("inproc://mandatory")
        do {
            try router.send([Array("nobody".utf8), Array("x".utf8)], dontWait: true)
            Issue.record("sending to an unknown identity must fail")
        } catch {
            #expect(error.code == .unreachable)
        }
    }

    @Test("using a closed socket is an error, not a crash")
    func closedSocket() throws {
        let context = Context()
        let socket = try context.socket(.dealer)
        socket.close()
        socket.close()
        #expect(socket.isClosed)
        #expect(throws: ZMQError.self) { try socket.send([[1]]) }
    }

    @Test("the context is terminated only after its sockets close, so teardown never hangs")
    func contextOutlivesSockets() async throws {
        // Sockets hold their context; dropping every reference in any order must return promptly.
        for _ in 0..<20 {
            var context: Context? = Context()
            let socket = try context!.socket(.dealer)
            try socket.connect("tcp://127.0.0.1:1")
            try socket.send([[1, 2, 3]])
            context = nil
            socket.close()
        }
    }
}
