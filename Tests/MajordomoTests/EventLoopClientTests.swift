import Foundation
import Majordomo
import NIOCore
import NIOPosix
import Synchronization
import Testing
import ZeroMQ

/// What both MDP clients must do alike when things go wrong, and what only the event-loop client
/// has: endpoints it parses itself, and a peer that is not a ZMTP broker.
@Suite("MDP clients: losses, cancellation, shutdown")
struct EventLoopClientTests {
    @Test("the event-loop client takes tcp://HOST:PORT and ipc://PATH, and refuses the rest")
    func endpoints() {
        #expect(EventLoopMajordomoClient.Endpoint("tcp://127.0.0.1:5555") == .tcp(host: "127.0.0.1", port: 5555))
        #expect(EventLoopMajordomoClient.Endpoint("tcp://broker:5555") == .tcp(host: "broker", port: 5555))
        #expect(EventLoopMajordomoClient.Endpoint("tcp://[::1]:5555") == .tcp(host: "::1", port: 5555))
        #expect(EventLoopMajordomoClient.Endpoint("ipc:///tmp/broker") == .unix(path: "/tmp/broker"))
        #expect(EventLoopMajordomoClient.Endpoint("tcp://[::1]:5555")?.description == "tcp://[::1]:5555")
        for bad in [
            "", "broker:5555", "tcp://", "tcp://127.0.0.1", "tcp://127.0.0.1:0", "tcp://127.0.0.1:65536",
            "tcp://*:5555", "tcp://:5555", "tcp://host:port", "ipc://", "ipc://*", "inproc://broker",
            "udp://127.0.0.1:5555",
        ] {
            #expect(EventLoopMajordomoClient.Endpoint(bad) == nil, "\(bad)")
        }
    }

    @Test("a request in flight when the broker goes away fails with `unavailable` at once", arguments: ClientKind.allCases)
    func brokerLostInFlight(kind: ClientKind) async throws {
        let broker = try Broker(configuration: Harness.configuration(), context: Context(), logger: Harness.logger)
        let worker = Harness.echoWorker(broker.endpoint, concurrency: 2) { body in
            try? await Task.sleep(for: .seconds(8))
            return body
        }
        let client = Harness.client(broker.endpoint, kind)
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

    @Test("a cancelled caller stops waiting at once, and the client carries on", arguments: ClientKind.allCases)
    func cancellation(kind: ClientKind) async throws {
        try await Harness.withBroker { broker in
            let worker = Harness.echoWorker(broker.endpoint, concurrency: 4) { body in
                if body == [Array("slow".utf8)] { try? await Task.sleep(for: .seconds(8)) }
                return body
            }
            let client = Harness.client(broker.endpoint, kind)
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

    @Test("stopping the client fails what it still waits for with `shutdown`", arguments: ClientKind.allCases)
    func shutdown(kind: ClientKind) async throws {
        try await Harness.withBroker { broker in
            let worker = Harness.echoWorker(broker.endpoint, concurrency: 2) { body in
                try? await Task.sleep(for: .seconds(8))
                return body
            }
            let client = Harness.client(broker.endpoint, kind)
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

    @Test("the event-loop client works with a libzmq broker over ipc://, big bodies and MMI included")
    func libzmqBrokerOverIPC() async throws {
        let path = "/tmp/backplane-test-\(UInt32.random(in: 0...UInt32.max)).ipc"
        defer { unlink(path) }
        let configuration = Harness.configuration(endpoint: "ipc://\(path)")
        #expect(configuration.engine.resolved(for: configuration.endpoint) == .libzmq)
        try await Harness.withBroker(configuration) { broker in
            let worker = Harness.echoWorker(broker.endpoint, concurrency: 4)
            let client = try #require(EventLoopMajordomoClient(endpoint: broker.endpoint, logger: Harness.logger))
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

    @Test("a peer that is not a ZMTP broker: the event-loop client drops it and answers `unavailable`")
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
        let client = try #require(EventLoopMajordomoClient(endpoint: "tcp://127.0.0.1:\(port)", logger: Harness.logger))
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
