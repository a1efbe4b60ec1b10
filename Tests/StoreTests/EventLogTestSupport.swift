import Foundation
import PostgresNIO
import Store

/// Helpers for event-log tests: a migrated log in a schema of its own, and appends.
enum EventLogTestSupport {
    /// Runs `body` with a migrated event log in a fresh schema, plus a side table
    /// `<schema>.effects(event_id uuid, worker int)` for handlers to write to.
    static func withEventLog<T>(
        clock: any WallClock = ManualClock(), _ body: (PostgresClient, EventLog) async throws -> T
    ) async throws -> T {
        try await TestDatabase.withSchema("ev") { client, schema in
            let log = EventLog(client: client, schema: schema, clock: clock, logger: TestDatabase.logger)
            try await log.migrate()
            try await client.query(
                "CREATE TABLE \(unescaped: schema).effects (event_id uuid NOT NULL, worker int NOT NULL)",
                logger: TestDatabase.logger
            )
            return try await body(client, log)
        }
    }

    static func event(_ topic: String = "orders.paid", _ n: Int = 0) -> NewEvent {
        NewEvent(
            topic: topic, producer: "tests", payload: Data(#"{"n": \#(n)}"#.utf8),
            requestId: "req-\(n)", createdAt: Date(timeIntervalSince1970: 1_704_067_200 + Double(n))
        )
    }

    /// Appends `events` in one committed transaction.
    @discardableResult
    static func appendCommitted(_ events: [NewEvent], to log: EventLog, client: PostgresClient) async throws
        -> [StoredEvent]
    {
        try await client.withTransaction(logger: TestDatabase.logger) { connection in
            var stored: [StoredEvent] = []
            for event in events { stored.append(try await log.append(event, on: connection)) }
            return stored
        }
    }

    /// Waits until all `count` events of the log are readable (no transaction that could still
    /// hold them back is open), then returns them.
    static func waitForReadable(_ count: Int, in log: EventLog) async throws -> [StoredEvent] {
        var seen: [StoredEvent] = []
        try await TestDatabase.eventually("\(count) events readable") {
            seen = try await log.fetch(after: .start, limit: 10_000)
            return seen.count >= count
        }
        return seen
    }

    /// The handler effects recorded in `<schema>.effects`, as event ids in insertion order.
    static func effects(in log: EventLog, client: PostgresClient) async throws -> [UUID] {
        let rows = try await client.query(
            "SELECT event_id FROM \(unescaped: log.schema).effects ORDER BY ctid", logger: TestDatabase.logger
        )
        var ids: [UUID] = []
        for try await id in rows.decode(UUID.self) { ids.append(id) }
        return ids
    }

    /// A catch-up handler that records the event in the effects table, in the catch-up's transaction.
    static func recordingHandler(schema: String, worker: Int)
        -> @Sendable (StoredEvent, PostgresConnection) async throws -> Void
    {
        { event, connection in
            try await connection.query(
                "INSERT INTO \(unescaped: schema).effects (event_id, worker) VALUES (\(event.id), \(worker))",
                logger: TestDatabase.logger
            )
        }
    }
}
