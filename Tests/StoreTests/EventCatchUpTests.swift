import Foundation
import PostgresNIO
import Store
import Testing

@Suite("Event log: consumer catch-up", .serialized)
struct EventCatchUpTests {
    typealias Support = EventLogTestSupport
    private struct HandlerFailed: Error, Equatable { let eventId: UUID }

    @Test func twoConcurrentCatchUpsHandleEachEventExactlyOnce() async throws {
        try await Support.withEventLog { client, log in
            let appended = try await Support.appendCommitted(
                (0..<40).map { Support.event("orders.paid", $0) }, to: log, client: client
            )
            _ = try await Support.waitForReadable(40, in: log)

            let schema = log.schema
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for worker in 1...2 {
                    group.addTask {
                        try await log.catchUp(
                            consumer: "printing", batch: 7,
                            handler: Support.recordingHandler(schema: schema, worker: worker)
                        )
                    }
                }
                var counts: [Int] = []
                for try await count in group { counts.append(count) }
                return counts
            }
            #expect(counts.reduce(0, +) == 40)
            let effects = try await Support.effects(in: log, client: client)
            #expect(effects.count == 40)
            #expect(Set(effects) == Set(appended.map(\.id)))
            #expect(try await log.cursor(consumer: "printing") == appended.last?.cursor)
            #expect(
                try await TestDatabase.scalar(
                    "SELECT count(*)::int FROM \(unescaped: schema).handled WHERE consumer = 'printing'", on: client)
                    == 40)
        }
    }

    @Test("lag: a consumer's unhandled events of its topics, less those handled live, none after catch-up")
    func lagCountsUnhandledEventsOfTheConsumersTopics() async throws {
        try await Support.withEventLog { client, log in
            let appended = try await Support.appendCommitted(
                (0..<5).map { Support.event($0 == 4 ? "other" : "orders.paid", $0) }, to: log, client: client)
            _ = try await Support.waitForReadable(5, in: log)
            let first = try await log.lag(consumer: "printing", topics: ["orders.paid"])
            #expect(first == ConsumerLag(events: 4, oldest: appended[0].createdAt))
            #expect(first.seconds(now: appended[0].createdAt.addingTimeInterval(90)) == 90)

            // Handled live: no longer behind on it, though the cursor has not moved.
            _ = try await client.withConnection { connection in
                try await log.markHandled(consumer: "printing", eventId: appended[0].id, on: connection)
            }
            #expect(try await log.lag(consumer: "printing", topics: ["orders.paid"])
                == ConsumerLag(events: 3, oldest: appended[1].createdAt))

            try await log.catchUp(consumer: "printing", topics: ["orders.paid"]) { _, _ in }
            let none = try await log.lag(consumer: "printing", topics: ["orders.paid"])
            #expect(none == ConsumerLag(events: 0, oldest: nil))
            #expect(none.seconds(now: Date()) == 0)
        }
    }

    @Test func aRestartedConsumerResumesFromItsCursor() async throws {
        try await Support.withEventLog { client, log in
            let schema = log.schema
            let first = try await Support.appendCommitted(
                (0..<10).map { Support.event("t", $0) }, to: log, client: client
            )
            _ = try await Support.waitForReadable(10, in: log)
            let handled = try await log.catchUp(
                consumer: "notify", batch: 3, handler: Support.recordingHandler(schema: schema, worker: 1)
            )
            #expect(handled == 10)

            let second = try await Support.appendCommitted(
                (10..<15).map { Support.event("t", $0) }, to: log, client: client
            )
            _ = try await Support.waitForReadable(15, in: log)

            // A new process: a new EventLog value, nothing in memory but the database.
            let restarted = EventLog(client: client, schema: schema, clock: ManualClock(), logger: TestDatabase.logger)
            let resumed = try await restarted.catchUp(
                consumer: "notify", batch: 3, handler: Support.recordingHandler(schema: schema, worker: 2)
            )
            #expect(resumed == 5)
            #expect(
                try await restarted.catchUp(
                    consumer: "notify", batch: 3, handler: Support.recordingHandler(schema: schema, worker: 3)) == 0)

            let effects = try await Support.effects(in: log, client: client)
            #expect(effects == (first + second).map(\.id))

            // Another consumer has its own cursor and sees everything.
            #expect(
                try await log.catchUp(
                    consumer: "audit", handler: Support.recordingHandler(schema: schema, worker: 4)) == 15)
        }
    }

    @Test func eventAlreadyMarkedHandledSkipsTheHandlerButAdvancesTheCursor() async throws {
        try await Support.withEventLog { client, log in
            let events = try await Support.appendCommitted(
                [Support.event("t", 1), Support.event("t", 2)], to: log, client: client
            )
            _ = try await Support.waitForReadable(2, in: log)
            // The first event already arrived live and was handled then.
            let marked = try await client.withTransaction(logger: TestDatabase.logger) { connection in
                try await log.markHandled(consumer: "c", eventId: events[0].id, on: connection)
            }
            #expect(marked)
            let again = try await client.withConnection { connection in
                try await log.markHandled(consumer: "c", eventId: events[0].id, on: connection)
            }
            #expect(!again)

            let handled = try await log.catchUp(
                consumer: "c", handler: Support.recordingHandler(schema: log.schema, worker: 1)
            )
            #expect(handled == 1)
            #expect(try await Support.effects(in: log, client: client) == [events[1].id])
            #expect(try await log.cursor(consumer: "c") == events[1].cursor)
        }
    }

    @Test func handlerErrorStopsAtThatEventAndLeavesTheCursor() async throws {
        try await Support.withEventLog { client, log in
            let schema = log.schema
            let events = try await Support.appendCommitted(
                (1...3).map { Support.event("t", $0) }, to: log, client: client
            )
            _ = try await Support.waitForReadable(3, in: log)
            let poison = events[1].id

            let error = try await #require(throws: HandlerFailed.self) {
                try await log.catchUp(consumer: "c") { event, connection in
                    try await Support.recordingHandler(schema: schema, worker: 1)(event, connection)
                    if event.id == poison { throw HandlerFailed(eventId: event.id) }
                }
            }
            #expect(error == HandlerFailed(eventId: poison))
            // The failing event's writes rolled back with its transaction; the cursor stays on e1.
            #expect(try await Support.effects(in: log, client: client) == [events[0].id])
            #expect(try await log.cursor(consumer: "c") == events[0].cursor)
            #expect(
                try await TestDatabase.scalar(
                    "SELECT count(*)::int FROM \(unescaped: schema).handled WHERE event_id = \(poison)", on: client)
                    == 0)

            let resumed = try await log.catchUp(
                consumer: "c", handler: Support.recordingHandler(schema: schema, worker: 2))
            #expect(resumed == 2)
            #expect(try await Support.effects(in: log, client: client) == events.map(\.id))
        }
    }

    @Test func topicFilterOnlyHandlesMatchingEvents() async throws {
        try await Support.withEventLog { client, log in
            let events = try await Support.appendCommitted(
                [
                    Support.event("orders.paid", 1), Support.event("orders.cancelled", 2),
                    Support.event("orders.paid", 3),
                ],
                to: log, client: client
            )
            _ = try await Support.waitForReadable(3, in: log)
            let handled = try await log.catchUp(
                consumer: "printing", topics: ["orders.paid"],
                handler: Support.recordingHandler(schema: log.schema, worker: 1)
            )
            #expect(handled == 2)
            #expect(try await Support.effects(in: log, client: client) == [events[0].id, events[2].id])
        }
    }

    /// A consumer of a rare topic: its cursor moves over other producers' events, so each read
    /// starts near the end of the log instead of looking through the same events again.
    @Test func aFilteredConsumerMovesOverEventsItDoesNotRead() async throws {
        try await Support.withEventLog { client, log in
            let others = try await Support.appendCommitted(
                (0..<12).map { Support.event("routing.moved", $0) }, to: log, client: client)
            _ = try await Support.waitForReadable(12, in: log)
            let handler = Support.recordingHandler(schema: log.schema, worker: 1)
            #expect(
                try await log.catchUp(consumer: "orders", topics: ["printing.job_failed"], batch: 5, handler: handler)
                    == 0)
            #expect(try await log.cursor(consumer: "orders") == others.last?.cursor)

            let later = try await Support.appendCommitted(
                [Support.event("routing.moved", 12), Support.event("printing.job_failed", 13)], to: log, client: client)
            _ = try await Support.waitForReadable(14, in: log)
            #expect(
                try await log.catchUp(consumer: "orders", topics: ["printing.job_failed"], batch: 5, handler: handler)
                    == 1)
            #expect(try await Support.effects(in: log, client: client) == [later[1].id])
            #expect(try await log.cursor(consumer: "orders") == later.last?.cursor)

            // A full page (as many matching events as the batch) does not move the cursor past
            // what it read: the next read goes on from the last event handled.
            let matching = try await Support.appendCommitted(
                (14..<19).map { Support.event("printing.job_failed", $0) }, to: log, client: client)
            _ = try await Support.waitForReadable(19, in: log)
            #expect(
                try await log.catchUp(consumer: "orders", topics: ["printing.job_failed"], batch: 5, handler: handler)
                    == 5)
            #expect(try await log.cursor(consumer: "orders") == matching.last?.cursor)
        }
    }
}
