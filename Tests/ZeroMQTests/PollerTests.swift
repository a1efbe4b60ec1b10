import Foundation
import Testing
import ZeroMQ

@Suite("Poller, wake signal and I/O threads")
struct PollerTests {
    @Test("the poller reports which socket is readable")
    func readiness() throws {
        let context = Context()
        let a = try context.socket(.pair)
        try a.bind("inproc://poll-a")
        let b = try context.socket(.pair)
        try b.connect("inproc://poll-a")
        var poller = Poller()
        let slot = poller.add(a)
        #expect(try poller.poll(timeoutMs: 0) == 0)
        try b.send([[42]])
        #expect(try poller.poll(timeoutMs: 1000) == 1)
        #expect(poller.isReadable(slot))
        #expect(try a.receive() == [[42]])
    }

    @Test("a wake signal from another thread ends a poll that would otherwise wait")
    func wakeSignal() async throws {
        let wake = WakeSignal()
        let waited = try await withThrowingTaskGroup(of: Double?.self) { group in
            group.addTask {
                try await IOThread.run(name: "poll-test") {
                    var poller = Poller()
                    let slot = poller.add(fileDescriptor: wake.fileDescriptor)
                    let start = Date()
                    try poller.poll(timeoutMs: 30_000)
                    precondition(poller.isReadable(slot))
                    wake.drain()
                    return Date().timeIntervalSince(start)
                }
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(50))
                wake.signal()
                return nil
            }
            var result: Double?
            for try await value in group { if let value { result = value } }
            return result
        }
        #expect(try #require(waited) < 10, "woken long before the 30 s time-out")
    }

    @Test("a socket pump sends from async code and delivers what arrives as a stream")
    func socketPump() async throws {
        let context = Context()
        let publisher = SocketPump(context: context, type: .pub, name: "pub-test") { socket in
            try socket.bind("inproc://pump-test")
        }
        let subscriber = SocketPump(context: context, type: .sub, name: "sub-test") { socket in
            try socket.subscribe("topic")
            try socket.connect("inproc://pump-test")
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await publisher.run() }
            group.addTask { try await subscriber.run() }
            // PUB/SUB drops messages until the subscription has propagated; keep publishing.
            group.addTask {
                for index in 0..<400 {
                    publisher.send([Array("topic".utf8), Array("\(index)".utf8)])
                    publisher.send([Array("other".utf8), Array("ignored".utf8)])
                    try await Task.sleep(for: .milliseconds(25))
                }
            }
            var iterator = subscriber.messages.makeAsyncIterator()
            let message = try #require(await iterator.next())
            #expect(message.first == Array("topic".utf8), "only subscribed topics arrive")
            group.cancelAll()
            publisher.stop()
            subscriber.stop()
        }
    }
}
