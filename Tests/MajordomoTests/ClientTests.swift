import Foundation
import Majordomo
import NIOCore
import NIOPosix
import Synchronization
import Testing
import ZeroMQ

/// What the MDP client does when things go wrong: lost brokers, cancelled callers, shutdown,
/// endpoints it cannot use, and a peer that is not a ZMTP broker.
@Suite("MDP client: losses, cancellation, shutdown")
struct ClientTests {
    @Test("the client takes tcp://HOST:PORT, and refuses the rest")
    func endpoints() {
        #expect(MajordomoClient.Endpoint("tcp://127.0.0.1:5555") == .init(host: "127.0.0.1", port: 5555))
        #expect(MajordomoClient.Endpoint("tcp://broker:5555") == .init(host: "broker", port: 5555))
        #expect(MajordomoClient.Endpoint("tcp://[::1]:5555") == .init(host: "::1", port: 5555))
        #expect(MajordomoClient.Endpoint("tcp://[::1]:5555")?.description == "tcp://[::1]:5555")
        for bad in [
            "", "broker:5555", "tcp://", "tcp://127.0.0.1", "tcp://127.0.0.1:0", "tcp://127.0.0.1:65536",
            "tcp://*:5555", "tcp://:5555", "tcp://host:port", "ipc:///tmp/broker", "ipc://*", "inproc://broker",
            "udp://127.0.0.1:5555",
        ] {
            #expect(MajordomoClient.Endpoint(bad) == nil, "\(bad)")
        }
    }

    @Test("a request in flight when the broker goes away fails with `unavailable` at once")
    func brokerLostInFlight() async throws {
        let broker = try Broker(configuration: Harness.configuration(), logger: Harness.logger)
        let worker = Harness.echoWorker(broker.endpoint, concurrency: 2) { body in
            try? await Task.sleep(for: .seconds(8))
            return body
        }
        let client = Harness.client(broker.endpoint)
        try await Harness.withRunning([worker, client]) {
            let brokerRun = Task { try await broker.run() }
            try await Harness.eventually("the worker is served") { (try? await client.isServed("echo")) == true }
            let reply = Task { try await client.request(service: "echo", body: [[1]], timeout: .seconds(30)) }
            try await Task.sleep(for: .milliseconds(200))
            let stopped = ContinuousClock.now
            broker.stop()
            try await brokerRun.value
            do {
                _ = try await reply.value
                Issue.record("the broker is gone: must fail")
            } catch let error as MajordomoError {
                #expect(error.code == .unavailable)
            }
            #expect(ContinuousClock.now - stopped < .seconds(6))
        }
    }

    @Test("a cancelled caller stops waiting at once, and the client carries on")
    func cancellation() async throws {
        try await Harness.withBroker { broker in
            let worker = Harness.echoWorker(broker.endpoint, concurrency: 4) { body in
                if body == [Array("slow".utf8)] { try? await Task.sleep(for: .seconds(8)) }
                return body
            }
            let client = Harness.client(broker.endpoint)
            try await Harness.withRunning([worker, client]) {
                let slow = Task { try await client.request(service: "echo", body: [Array("slow".utf8)], timeout: .seconds(30)) }
                try await Task.sleep(for: .milliseconds(200))
                let cancelled = ContinuousClock.now
                slow.cancel()
                await #expect(throws: CancellationError.self) { _ = try await slow.value }
                #expect(ContinuousClock.now - cancelled < .seconds(5))
                let answer = try await client.request(service: "echo", body: [[7]], timeout: .seconds(10))
                #expect(answer == [[7]])
            }
        }
    }

    @Test("stopping the client fails what it still waits for with `shutdown`")
    func shutdown() async throws {
        try await Harness.withBroker { broker in
            let worker = Harness.echoWorker(broker.endpoint, concurrency: 2) { body in
                try? await Task.sleep(for: .seconds(8))
                return body
            }
            let client = Harness.client(broker.endpoint)
            try await Harness.withRunning([worker]) {
                let clientRun = Task { try await client.run() }
                let reply = Task { try await client.request(service: "echo", body: [[1]], timeout: .seconds(30)) }
                try await Task.sleep(for: .milliseconds(300))
                client.halt()
                try await clientRun.value
                do {
                    _ = try await reply.value
                    Issue.record("the client stopped: must fail")
                } catch let error as MajordomoError {
                    #expect(error.code == .shutdown)
                }
            }
        }
    }

    @Test("big bodies and MMI go through the client")
    func bigBodies() async throws {
        try await Harness.withBroker { broker in
            let worker = Harness.echoWorker(broker.endpoint, concurrency: 4)
            let client = try #require(MajordomoClient(endpoint: broker.endpoint, logger: Harness.logger))
            try await Harness.withRunning([worker, client]) {
                try await Harness.eventually("the worker is served") { (try? await client.isServed("echo")) == true }
                #expect(try await client.isServed("nobody") == false)
                // Frames of every size class: empty, short, exactly 255, 256 (a long header), 1 MiB.
                let body: [Frame] = [
                    [], [1], [UInt8](repeating: 2, count: 255), [UInt8](repeating: 3, count: 256),
                    [UInt8](repeating: 4, count: 1 << 20),
                ]
                let answer = try await client.request(service: "echo", body: body, timeout: .seconds(10))
                #expect(answer == body)
            }
        }
    }

    @Test("a peer that is not a ZMTP broker: the client drops it and answers `unavailable`")
    func notABroker() async throws {
        // A TCP server that answers every connection as a web server would.
        let group = MultiThreadedEventLoopGroup.singleton
        let server = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Refuser())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { server.close(promise: nil) }
        let port = try #require(server.localAddress?.port)
        let client = try #require(MajordomoClient(endpoint: "tcp://127.0.0.1:\(port)", logger: Harness.logger))
        try await Harness.withRunning([client]) {
            do {
                _ = try await client.request(service: "echo", body: [[1]], timeout: .milliseconds(500))
                Issue.record("not a broker: must fail")
            } catch let error as MajordomoError {
                #expect(error.code == .unavailable)
            }
            #expect(!client.isConnected)
        }
    }
}

/// Writes an HTTP error to whoever connects, then waits for them to hang up.
private final class Refuser: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 400 Bad Request\r\n\r\n")), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
