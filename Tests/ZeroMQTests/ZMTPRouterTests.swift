import CZeroMQ
import Foundation
import Glibc
import Testing
import ZMTPFuzz
import ZeroMQ

/// The native ROUTER against libzmq's own peers: what it receives and sends must be what a libzmq
/// ROUTER would.
@Suite("ZMTP router")
struct ZMTPRouterTests {
    /// A libzmq socket connected to `router`, giving up on a receive after 5 s.
    func peer(_ type: SocketType, of router: ZMTPRouter, in context: Context, id: String? = nil) throws -> Socket {
        let socket = try context.socket(type)
        try socket.setOption(ZMQ_RCVTIMEO, 5000)
        if let id { try socket.setOption(ZMQ_ROUTING_ID, bytes: Array(id.utf8)) }
        try socket.connect(router.endpoint)
        return socket
    }

    /// Drives `router` (accepts, reads, writes) until `done` holds or `limit` passes.
    @discardableResult
    func pump(_ router: ZMTPRouter, for limit: Duration = .seconds(5), until done: () throws -> Bool) throws -> Bool {
        var poller = Poller()
        poller.add(fileDescriptor: router.fileDescriptor)
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            router.flush()
            if try done() { return true }
            try poller.poll(timeoutMs: 10)
            router.process()
        }
        return try done()
    }

    /// The next message `router` receives, within 5 s.
    func next(_ router: ZMTPRouter) throws -> Message {
        var message: Message?
        try pump(router) {
            message = router.receive()?.frames
            return message != nil
        }
        return try #require(message, "no message within 5 s")
    }

    @Test("libzmq DEALERs exchange multipart messages with it: empty, binary and long frames")
    func multipartRoundTrip() throws {
        let context = Context()
        let router = try ZMTPRouter(bind: "tcp://127.0.0.1:*")
        defer { router.close() }
        #expect(router.endpoint.hasPrefix("tcp://127.0.0.1:") && !router.endpoint.hasSuffix(":*"))
        let dealer = try peer(.dealer, of: router, in: context)
        defer { dealer.close() }
        let frames: Message = [
            Array("hello".utf8), [], [0x00, 0xFF, 0x7F], Array(repeating: 0xAB, count: 255),
            Array(repeating: 0xCD, count: 256), Array(repeating: 0xEF, count: 1 << 20),
        ]
        try dealer.send(frames)
        let received = try next(router)
        #expect(Array(received.dropFirst()) == frames)
        let id = received[0]
        #expect(id.count == 5 && id[0] == 0, "a generated routing id is five bytes starting with zero")
        #expect(router.send([id] + frames) == .queued)
        router.flush()
        #expect(try dealer.receive() == frames)
        // Many messages in a row arrive whole and in order, in both directions.
        for index in 0..<500 {
            try dealer.send([Array("m\(index)".utf8), Array(repeating: UInt8(index % 256), count: index)])
        }
        for index in 0..<500 {
            let message = try next(router)
            #expect(message == [id, Array("m\(index)".utf8), Array(repeating: UInt8(index % 256), count: index)])
            router.send(message)
        }
        router.flush()
        for index in 0..<500 {
            #expect(
                try dealer.receive() == [Array("m\(index)".utf8), Array(repeating: UInt8(index % 256), count: index)])
        }
    }

    @Test("a peer's ROUTING_ID is its routing id; a second peer asking for the same one is refused")
    func routingIDs() throws {
        let context = Context()
        let router = try ZMTPRouter(bind: "tcp://127.0.0.1:*")
        defer { router.close() }
        let first = try peer(.dealer, of: router, in: context, id: "worker-a")
        defer { first.close() }
        try first.send([Array("one".utf8)])
        #expect(try next(router) == [Array("worker-a".utf8), Array("one".utf8)])
        let second = try peer(.dealer, of: router, in: context, id: "worker-a")
        defer { second.close() }
        try second.send([Array("two".utf8)])
        let other = try peer(.dealer, of: router, in: context)
        defer { other.close() }
        try other.send([Array("three".utf8)])
        let third = try next(router)
        #expect(Array(third.dropFirst()) == [Array("three".utf8)], "the refused peer's message never arrives")
        try pump(router, for: .milliseconds(300)) { false }  // time for the refused peer's message to show, if it would
        #expect(router.receive()?.frames == nil)
        #expect(router.peerCount == 2)
        router.send([Array("worker-a".utf8), Array("still yours".utf8)])
        router.flush()
        #expect(try first.receive() == [Array("still yours".utf8)])
    }

    @Test("an unknown routing id is unreachable, and so is a peer that has gone")
    func unreachable() throws {
        let context = Context()
        let router = try ZMTPRouter(bind: "tcp://127.0.0.1:*")
        defer { router.close() }
        #expect(router.send([Array("nobody".utf8), Array("hi".utf8)]) == .unreachable)
        #expect(router.send([]) == .unreachable)
        let dealer = try peer(.dealer, of: router, in: context, id: "leaving")
        try dealer.send([Array("hi".utf8)])
        _ = try next(router)
        dealer.close()
        #expect(try pump(router) { router.peerCount == 0 })
        #expect(router.send([Array("leaving".utf8), Array("hi".utf8)]) == .unreachable)
    }

    @Test("REQ peers are served; a PUB peer, which cannot talk to a ROUTER, is refused")
    func socketTypes() throws {
        let context = Context()
        let router = try ZMTPRouter(bind: "tcp://127.0.0.1:*")
        defer { router.close() }
        let publisher = try peer(.pub, of: router, in: context)
        defer { publisher.close() }
        try publisher.send([Array("published".utf8)], dontWait: true)
        let request = try peer(.req, of: router, in: context)
        defer { request.close() }
        try request.send([Array("question".utf8)])
        let received = try next(router)
        #expect(Array(received.dropFirst()) == [[], Array("question".utf8)], "REQ puts an empty delimiter first")
        router.send([received[0], [], Array("answer".utf8)])
        router.flush()
        #expect(try request.receive() == [Array("answer".utf8)])
        #expect(router.receive()?.frames == nil)
        #expect(router.peerCount == 1)
    }

    @Test("a backlog bigger than the kernel's buffers goes out as the peer reads it")
    func backlog() throws {
        let context = Context()
        let router = try ZMTPRouter(bind: "tcp://127.0.0.1:*")
        defer { router.close() }
        let dealer = try peer(.dealer, of: router, in: context)
        defer { dealer.close() }
        try dealer.send([Array("hello".utf8)])
        let id = try next(router)[0]
        let chunk = [UInt8](repeating: 0x5A, count: 64 << 10)
        let total = 400  // 25 MiB
        for index in 0..<total { router.send([id, Array("\(index)".utf8), chunk]) }
        var received = 0
        var inOrder = true
        let drained = try pump(router) {
            while let message = try dealer.receive(dontWait: true) {
                inOrder = inOrder && message == [Array("\(received)".utf8), chunk]
                received += 1
            }
            return received == total
        }
        #expect(drained && inOrder, "received \(received) of \(total)")
    }

    @Test("messages to a peer with too much unread output are dropped")
    func pendingOutputLimit() throws {
        let context = Context()
        let router = try ZMTPRouter(bind: "tcp://127.0.0.1:*", limits: .init(maxPendingOutput: 1000))
        defer { router.close() }
        let dealer = try peer(.dealer, of: router, in: context)
        defer { dealer.close() }
        try dealer.send([Array("hello".utf8)])
        let id = try next(router)[0]
        let chunk = [UInt8](repeating: 1, count: 600)
        #expect(router.send([id, chunk]) == .queued)
        #expect(router.send([id, chunk]) == .queued)
        #expect(router.send([id, chunk]) == .dropped)
        router.flush()
        #expect(try dealer.receive() == [chunk])
        #expect(try dealer.receive() == [chunk])
        #expect(router.send([id, chunk]) == .queued, "written out, so there is room again")
    }

    @Test("a message over the size limit closes its connection; other peers carry on")
    func messageSizeLimit() throws {
        let context = Context()
        let router = try ZMTPRouter(bind: "tcp://127.0.0.1:*", limits: .init(maxMessageSize: 1000))
        defer { router.close() }
        let big = try peer(.dealer, of: router, in: context, id: "big")
        defer { big.close() }
        try big.send([Array(repeating: 1, count: 600), Array(repeating: 2, count: 600)])
        let small = try peer(.dealer, of: router, in: context, id: "small")
        defer { small.close() }
        try small.send([Array("fits".utf8)])
        #expect(try next(router) == [Array("small".utf8), Array("fits".utf8)])
        try pump(router, for: .milliseconds(300)) { false }
        #expect(router.receive()?.frames == nil, "the oversized message is never delivered")
    }

    @Test("a connection that does not finish its handshake in time is closed")
    func stalledHandshake() throws {
        let router = try ZMTPRouter(bind: "tcp://127.0.0.1:*", limits: .init(handshakeTimeoutMs: 1000))
        defer { router.close() }
        let port = try #require(router.endpoint.split(separator: ":").last.flatMap { UInt16($0) })
        let silent = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(silent) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(silent, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(connected == 0)
        #expect(try pump(router) { router.connectionCount == 1 })
        // The clock is the caller's: the first sweep stamps the connection, later ones measure.
        router.closeStalledHandshakes(nowMs: 50_000)
        router.closeStalledHandshakes(nowMs: 50_999)
        #expect(router.connectionCount == 1)
        router.closeStalledHandshakes(nowMs: 51_000)
        #expect(router.connectionCount == 0)
        let context = Context()
        let dealer = try peer(.dealer, of: router, in: context)
        defer { dealer.close() }
        try dealer.send([Array("after".utf8)])
        #expect(Array(try next(router).dropFirst()) == [Array("after".utf8)])
        router.closeStalledHandshakes(nowMs: 60_000)
        router.closeStalledHandshakes(nowMs: 99_000)
        #expect(router.peerCount == 1, "a peer that finished its handshake stays")
    }

    /// A plain TCP connection to `router`, blocking, for bytes written by hand.
    func rawConnection(to router: ZMTPRouter) throws -> Int32 {
        let port = try #require(router.endpoint.split(separator: ":").last.flatMap { UInt16($0) })
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0)
        return fd
    }

    /// Whether the other end closed `fd`, after reading whatever it had sent.
    func closedByPeer(_ fd: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { continue }
            return count == 0 || errno == ECONNRESET
        }
    }

    @Test("of 200 fuzzed streams the router closes exactly those its decoder rejects; a libzmq peer carries on")
    func fuzzedConnections() throws {
        let context = Context()
        let router = try ZMTPRouter(bind: "tcp://127.0.0.1:*", limits: .init(maxMessageSize: 512))
        defer { router.close() }
        let steady = try peer(.dealer, of: router, in: context, id: "steady")
        defer { steady.close() }
        try steady.send([Array("before".utf8)])
        #expect(try next(router) == [Array("steady".utf8), Array("before".utf8)])
        let fuzzer = ZMTPFuzzer(seed: 20, maxMessageSize: 512)
        var cases: [(fd: Int32, rejected: Bool, index: Int)] = []
        defer { for item in cases { Glibc.close(item.fd) } }
        var index = 0
        while cases.count < 200 {
            defer { index += 1 }
            let bytes = fuzzer.input(index).bytes
            let transcript = ZMTPTranscript(decoding: bytes, maxMessageSize: 512)
            // A short identity could repeat in another case and be refused as taken: leave those out.
            let shortIdentity = transcript.records.contains {
                guard case .ready(let properties) = $0, let identity = properties["Identity"] else { return false }
                return !identity.isEmpty && identity.count < 4
            }
            if shortIdentity { continue }
            let fd = try rawConnection(to: router)
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            #expect(sent == bytes.count || transcript.failure != nil)
            cases.append((fd, transcript.failure != nil, index))
        }
        let open = cases.filter { !$0.rejected }.count + 1
        #expect(open > 20 && open < 180, "both outcomes are tried")
        func settled() -> Bool {
            while router.receive() != nil {}
            return router.connectionCount == open
        }
        // Settled, and still so a moment later (no connection accepted late).
        #expect(try pump(router, until: settled))
        try pump(router, for: .milliseconds(300)) { false }
        #expect(settled())
        for item in cases {
            #expect(closedByPeer(item.fd) == item.rejected, "case \(item.index) of seed 20")
        }
        try steady.send([Array("after".utf8)])
        #expect(try next(router) == [Array("steady".utf8), Array("after".utf8)])
        router.send([Array("steady".utf8), Array("still here".utf8)])
        router.flush()
        #expect(try steady.receive() == [Array("still here".utf8)])
    }

    @Test("a packed message reads its frames in place and passes them on")
    func packedMessage() throws {
        let frames: Message = [Array("id".utf8), [], Array(repeating: 7, count: 300), [1, 2, 3]]
        let packed = PackedMessage(frames)
        #expect(packed.count == 4 && packed.byteCount == 305)
        #expect(packed.size(0) == 2 && packed.size(1) == 0 && packed.size(2) == 300)
        #expect(packed.frames == frames && packed[3] == [1, 2, 3])
        #expect(
            packed.frame(0, equals: Array("id".utf8)) && !packed.frame(0, equals: []) && packed.frame(1, equals: []))
        #expect(MessageBody.packed(packed, from: 2).frames == Array(frames[2...]))
        #expect(MessageBody.packed(packed, from: 2).count == 2)
        for body in [MessageBody.packed(packed, from: 2), .frames(frames[2...])] {
            var seen: Message = []
            body.forEachFrame { seen.append(Array($0)) }
            #expect(seen == Array(frames[2...]))
        }
    }

    @Test("a packed message of more frames than it keeps inline reads every one of them")
    func packedMessageOfManyFrames() {
        let frames: Message = (0..<20).map { Array(repeating: UInt8($0), count: $0 % 3 == 0 ? 0 : $0 * 20) }
        let packed = PackedMessage(frames)
        #expect(packed.count == 20 && packed.byteCount == frames.reduce(0) { $0 + $1.count })
        #expect(packed.frames == frames)
        for index in frames.indices {
            #expect(packed.size(index) == frames[index].count && packed.frame(index, equals: frames[index]))
        }
        #expect(MessageBody.packed(packed, from: 7).frames == Array(frames[7...]))
    }

    @Test("endpoints it cannot serve are refused with a clear error")
    func badEndpoints() throws {
        for endpoint in ["ipc:///tmp/x", "tcp://127.0.0.1", "tcp://127.0.0.1:port", "tcp://no.such.host.invalid:1"] {
            #expect(throws: ZMQError.self, "\(endpoint)") { try ZMTPRouter(bind: endpoint) }
        }
        let router = try ZMTPRouter(bind: "tcp://*:*")
        defer { router.close() }
        #expect(router.endpoint.hasPrefix("tcp://0.0.0.0:"))
        do {
            _ = try ZMTPRouter(bind: router.endpoint)
            Issue.record("binding a used port must fail")
        } catch {
            #expect(error.code == .badEndpoint)
            #expect(error.description.contains("bind tcp://0.0.0.0:"))
        }
    }
}
