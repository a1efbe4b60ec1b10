import Contract
import Foundation
import Logging
import Majordomo
import PostgresNIO
import ServiceKit
import ServiceLifecycle
import Store
import Synchronization
import Testing
import ZeroMQ

/// Events end to end: appended in a transaction, announced through the event proxy,
/// handled exactly once by a consumer, which also finds events nobody announced.
@Suite("Event bus: outbox, proxy, consumer", .serialized)
struct EventBusTests {
    typealias Support = EventLogTestSupport

    struct Paid: Codable, Sendable { let orderId: String }

    /// An event proxy, a publisher and a consumer, for `body`.
    func withBus(
        log: EventLog, pollInterval: Duration, handler: @escaping EventConsumer.Handler,
        _ body: @Sendable (EventPublisher) async throws -> Void
    ) async throws {
        let context = Context()
        let proxy = try EventProxy(publish: "tcp://127.0.0.1:*", subscribe: "tcp://127.0.0.1:*", context: context)
        let publisher = EventPublisher(log: log, producer: .orders, context: context, endpoint: proxy.publishEndpoint)
        let consumer = EventConsumer(
            name: "tests.paid", topics: ["orders.paid"], log: log, context: context,
            endpoint: proxy.subscribeEndpoint, pollInterval: pollInterval, logger: TestDatabase.logger,
            handler: handler)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await proxy.run() }
            group.addTask { try await publisher.service.run() }
            group.addTask { try await consumer.run() }
            defer { group.cancelAll() }
            try await body(publisher)
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    @discardableResult
    func publish(_ orderId: String, with publisher: EventPublisher, client: PostgresClient, announce: Bool) async throws
        -> StoredEvent
    {
        let stored = try await client.withTransaction(logger: TestDatabase.logger) { connection in
            try await publisher.append(
                topic: "orders.paid", payload: Paid(orderId: orderId), requestId: "r-\(orderId)",
                in: Transaction(connection: connection, logger: TestDatabase.logger))
        }
        if announce { publisher.announce(stored) }
        return stored
    }

    @Test("an announced event is handled at once (the nudge), long before the next poll")
    func nudged() async throws {
        try await Support.withEventLog(clock: SystemClock()) { client, log in
            let handled = Mutex<[String]>([])
            try await withBus(log: log, pollInterval: .seconds(60)) { event, _ in
                let paid = try Wire.makeDecoder().decode(Paid.self, from: event.payload)
                handled.withLock { $0.append(paid.orderId) }
            } _: { publisher in
                let started = ContinuousClock.now
                var stored: [StoredEvent] = []
                for index in 0..<3 {
                    stored.append(try await publish("o\(index)", with: publisher, client: client, announce: true))
                }
                // PUB/SUB drops messages until a new subscription has reached the publisher (the
                // "slow joiner"); a nudge carries no data, so announcing again is harmless.
                let events = stored
                try await TestDatabase.eventually("three events handled") {
                    if handled.withLock({ $0.count }) == 3 { return true }
                    for event in events { publisher.announce(event) }
                    try await Task.sleep(for: .milliseconds(200))
                    return false
                }
                #expect(ContinuousClock.now - started < .seconds(30), "the nudge, not the 60 s poll")
                #expect(handled.withLock { $0 } == ["o0", "o1", "o2"], "in log order")
            }
        }
    }

    @Test("an event whose nudge was lost is still handled, exactly once, by polling the log")
    func polled() async throws {
        try await Support.withEventLog(clock: SystemClock()) { client, log in
            let handled = Mutex<[String]>([])
            try await withBus(log: log, pollInterval: .milliseconds(100)) { event, _ in
                let paid = try Wire.makeDecoder().decode(Paid.self, from: event.payload)
                handled.withLock { $0.append(paid.orderId) }
            } _: { publisher in
                try await publish("silent", with: publisher, client: client, announce: false)
                try await publish("loud", with: publisher, client: client, announce: true)
                try await TestDatabase.eventually("both handled") { handled.withLock { $0.count } >= 2 }
                try await Task.sleep(for: .milliseconds(500))
                #expect(handled.withLock { $0 } == ["silent", "loud"], "each once, none twice")
            }
        }
    }

    @Test("a failing handler is retried; the event is not skipped and is handled once it succeeds")
    func retried() async throws {
        struct Flaky: Error {}
        try await Support.withEventLog(clock: SystemClock()) { client, log in
            let attempts = Mutex(0)
            let effects = Mutex<[String]>([])
            try await withBus(log: log, pollInterval: .milliseconds(100)) { event, _ in
                let attempt = attempts.withLock { value in
                    value += 1
                    return value
                }
                if attempt < 3 { throw Flaky() }
                let paid = try Wire.makeDecoder().decode(Paid.self, from: event.payload)
                effects.withLock { $0.append(paid.orderId) }
            } _: { publisher in
                try await publish("retry-me", with: publisher, client: client, announce: true)
                try await TestDatabase.eventually("handled after retries") { effects.withLock { $0.count } == 1 }
                #expect(attempts.withLock { $0 } == 3)
            }
        }
    }
}
