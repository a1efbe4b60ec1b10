import Foundation
import Logging
import Majordomo
import Testing
import ZeroMQ

/// Real sockets on loopback with wildcard ports, so tests run in parallel and beside a running system.
enum Harness {
    static let logger: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }()

    static func configuration(
        endpoint: String = "tcp://127.0.0.1:*", heartbeatMs: Int64 = 100, liveness: Int = 3,
        requestTimeoutMs: Int64 = 15000
    ) -> BrokerConfiguration {
        BrokerConfiguration(
            endpoint: endpoint,
            heartbeat: HeartbeatSettings(intervalMs: heartbeatMs, liveness: liveness),
            requestTimeoutMs: requestTimeoutMs)
    }

    /// Runs `body` with a live broker, then stops it.
    static func withBroker<T: Sendable>(
        _ configuration: BrokerConfiguration = configuration(),
        _ body: @Sendable (Broker) async throws -> T
    ) async throws -> T {
        let broker = try Broker(configuration: configuration, logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await broker.run()
                return nil
            }
            defer { broker.stop() }
            let result = try await body(broker)
            broker.stop()
            try await group.waitForAll()
            return result
        }
    }

    /// Runs `body` with running services (clients, workers), then stops them.
    static func withRunning<T: Sendable>(
        _ services: [any Runnable], _ body: @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            for service in services {
                group.addTask {
                    try await service.run()
                    return nil
                }
            }
            defer { for service in services { service.halt() } }
            let result = try await body()
            for service in services { service.halt() }
            try await group.waitForAll()
            return result
        }
    }

    static func echoWorker(
        _ endpoint: String, service: String = "echo", concurrency: Int = 4, heartbeatMs: Int64 = 100,
        tag: String? = nil, start: MajordomoWorker.HandlerStart = .taskPool,
        quick: Set<String> = [], handler: MajordomoWorker.Handler? = nil
    ) -> MajordomoWorker {
        MajordomoWorker(
            endpoint: endpoint, service: service, concurrency: concurrency, handlerStart: start,
            quickOperations: quick,
            heartbeat: HeartbeatSettings(intervalMs: heartbeatMs, liveness: 3), drainTimeoutMs: 5000,
            logger: logger,
            handler: handler ?? { body in tag.map { [Array($0.utf8)] + body } ?? body })
    }

    static func client(_ endpoint: String) -> MajordomoClient {
        MajordomoClient(endpoint: endpoint, logger: logger)!
    }

    /// Waits until `condition` holds, polling; fails after `timeout`.
    static func eventually(
        timeout: Duration = .seconds(10), _ what: String, _ condition: @Sendable () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessError(message: "timed out waiting for: \(what)")
    }

    struct HarnessError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}

/// Something with a run loop and a way to end it.
protocol Runnable: Sendable {
    func run() async throws
    func halt()
}

extension MajordomoClient: Runnable {
    func halt() { stop() }
}

extension MajordomoWorker: Runnable {
    func halt() { drain() }
}

extension MajordomoRequester {
    /// Asks the broker whether `service` has a live worker.
    func isServed(_ service: String) async throws -> Bool {
        try await request(service: "mmi.service", body: [Array(service.utf8)], timeout: .seconds(5)) == [
            Array("200".utf8)
        ]
    }
}

func text(_ frames: [Frame]) -> [String] { frames.map { String(decoding: $0, as: UTF8.self) } }
