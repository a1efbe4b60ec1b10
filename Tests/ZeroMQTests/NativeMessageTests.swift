import CZeroMQ
import Testing
import ZeroMQ

@Suite("Native messages: frames passed on without a copy")
struct NativeMessageTests {
    /// Runs `body` with a ROUTER bound to a fresh port and a DEALER connected to it, then closes both.
    func withPair(_ body: (Context, Socket, Socket) throws -> Void) throws {
        let context = Context()
        let router = try context.socket(.router)
        try router.bind("tcp://127.0.0.1:*")
        let dealer = try context.socket(.dealer)
        defer {
            dealer.close()
            router.close()
        }
        try dealer.connect(try router.lastEndpoint())
        try body(context, router, dealer)
    }

    @Test("frames are read in place, and a body of many frames is forwarded whole")
    func forwardsBody() throws {
        try withPair { _, router, dealer in
            // Twenty frames: more than the eight a native message starts with, so it grows.
            let body: Message = (0..<18).map { index in
                index == 3 ? [] : Array(repeating: UInt8(index), count: 40 + index)
            }
            try dealer.send([Array("head".utf8), [0x02]] + body)
            let received = try #require(try router.receiveNative())
            #expect(received.count == 21, "identity, two header frames, eighteen body frames")
            #expect(received.frame(1, equals: Array("head".utf8)))
            #expect(!received.frame(1, equals: Array("hea".utf8)))
            #expect(received.size(2) == 1)
            #expect(received.withBytes(2) { $0[0] } == 0x02)
            #expect(received.size(6) == 0, "an empty frame stays empty")
            #expect(received[20] == body[17])
            #expect(MessageBody.native(received, from: 3).frames == body)

            let identity = received[0]
            #expect(try router.send([identity, Array("reply".utf8)], body: .native(received, from: 3)))
            #expect(try dealer.receive() == [Array("reply".utf8)] + body)
        }
    }

    @Test("a message that cannot be queued leaves its native body in place for another try")
    func wouldBlockKeepsBody() throws {
        try withPair { context, router, dealer in
            try dealer.send([Array("payload".utf8)])
            let received = try #require(try router.receiveNative())
            let lonely = try context.socket(.dealer)
            defer { lonely.close() }
            try lonely.setOption(ZMQ_IMMEDIATE, 1)
            try lonely.connect("tcp://127.0.0.1:1")
            #expect(try lonely.send([], body: .native(received, from: 1), dontWait: true) == false)
            #expect(received[1] == Array("payload".utf8), "the frame was not consumed")
            #expect(try router.send([received[0]], body: .native(received, from: 1)))
            #expect(try dealer.receive() == [Array("payload".utf8)])
        }
    }

    @Test("receiveNative with dontWait returns nil when nothing waits; frames copied out stay valid")
    func nonBlockingAndCopies() throws {
        try withPair { _, router, dealer in
            #expect(try router.receiveNative(dontWait: true) == nil)
            try dealer.send([Array(repeating: 0x61, count: 1000), Array("b".utf8)])
            var copies: Message = []
            do {
                let received = try #require(try router.receiveNative())
                copies = MessageBody.native(received, from: 1).frames
            }
            #expect(copies == [Array(repeating: 0x61, count: 1000), Array("b".utf8)])
            #expect(try router.receive(dontWait: true) == nil)
        }
    }
}
