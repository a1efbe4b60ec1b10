import Logging
import Majordomo
import ServiceKit

/// A service started in process for a test: a broker on a free loopback port with fast
/// heartbeats, one worker answering with an ``OperationRouter``, and a bus client to it. The one
/// place tests wire these together (and take them down in the right order: client, worker,
/// broker).
public enum InProcessBus {
    /// A broker on a free loopback port with 200 ms heartbeats, not yet running (its workers must
    /// beat as often, or it counts them gone after 600 ms of quiet).
    public static func broker(requestTimeoutMs: Int64 = 5_000, logger: Logger) throws -> Broker {
        try Broker(
            configuration: BrokerConfiguration(
                endpoint: "tcp://127.0.0.1:*",
                heartbeat: HeartbeatSettings(intervalMs: 200, liveness: 3), requestTimeoutMs: requestTimeoutMs),
            logger: logger)
    }

    /// Runs a broker and one worker answering with `router` (at most `concurrency` requests at
    /// once) for the duration of `body`, which gets the broker's endpoint and a bus client.
    public static func with<T: Sendable>(
        _ router: OperationRouter, concurrency: Int = 4, requestTimeoutMs: Int64 = 5_000, logger: Logger,
        _ body: @Sendable (_ endpoint: String, _ bus: BusClient) async throws -> T
    ) async throws -> T {
        let broker = try broker(requestTimeoutMs: requestTimeoutMs, logger: logger)
        // Started as `WorkerHost` starts it by default: the router's quick operations on the
        // worker's I/O thread, the others on the task pool.
        let worker = MajordomoWorker(
            endpoint: broker.endpoint, service: router.service.rawValue, concurrency: concurrency,
            handlerStart: .quickOnIOThread, quickOperations: router.quickOperations,
            heartbeat: HeartbeatSettings(intervalMs: 200, liveness: 3), logger: logger
        ) { await router.handle($0) }
        guard let client = MajordomoClient(endpoint: broker.endpoint, logger: logger) else {
            throw MajordomoError(.unavailable, "no client for \(broker.endpoint)")
        }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await broker.run() }
            group.addTask { try await worker.run() }
            group.addTask { try await client.run() }
            defer {
                client.stop()
                worker.drain()
                broker.stop()
            }
            let result = try await body(broker.endpoint, BusClient(client: client, defaultTimeout: .seconds(10)))
            client.stop()
            worker.drain()
            broker.stop()
            try await group.waitForAll()
            return result
        }
    }
}
