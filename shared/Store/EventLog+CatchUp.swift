import Foundation
import Logging
import PostgresNIO

extension EventLog {
    /// Handles, in log order, every event the named consumer has not handled yet, and returns
    /// how many it handled (events already marked handled are skipped and not counted).
    ///
    /// For each event, in one transaction: lock the consumer's cursor row; skip the event if the
    /// cursor is already past it (another catch-up for the same consumer got there first);
    /// insert `(consumer, event id)` into `handled` (if that row exists, the handler is skipped:
    /// handlers run at most once per event, whichever path delivered it); run `handler` on the
    /// transaction's connection, so its writes commit or roll back with the cursor; advance the
    /// cursor. Concurrent catch-ups of one consumer, and a catch-up after a restart, therefore
    /// handle each event exactly once.
    ///
    /// If `handler` throws, that event's transaction rolls back (the cursor stays before it), the
    /// catch-up stops, and the handler's error is rethrown. Use the same `topics` for a consumer
    /// every time: when a read finds fewer than `batch` events, the cursor also moves over the
    /// events that did not pass the filter, up to the read's ``EventLog/Page/horizon``.
    ///
    /// It returns when a fetch finds nothing more that is readable; events still held back by an
    /// open transaction are handled by a later call.
    @discardableResult
    public func catchUp(
        consumer: String,
        topics: [String]? = nil,
        batch: Int = 100,
        handler: @Sendable (StoredEvent, PostgresConnection) async throws -> Void
    ) async throws -> Int {
        let schema = try validSchema()
        guard batch > 0 else { throw StoreError(.invalidArgument, "catch-up batch must be positive, got \(batch)") }
        var logger = self.logger
        logger[metadataKey: "consumer"] = "\(consumer)"
        try await registerConsumer(consumer, schema: schema)

        var handledCount = 0
        var cursor = try await self.cursor(consumer: consumer)
        while true {
            let page = try await client.withConnection { connection in
                try await fetchPage(after: cursor, topics: topics, limit: batch, on: connection)
            }
            for event in page.events {
                if try await handleOne(event, consumer: consumer, schema: schema, logger: logger, handler: handler) {
                    handledCount += 1
                }
                cursor = event.cursor
            }
            guard page.events.count < batch else { continue }
            // Every readable event up to the horizon was looked at and those that pass the
            // filter are handled: the cursor moves over the rest, so the next read starts there.
            if let horizon = page.horizon, cursor < horizon {
                try await advance(consumer: consumer, to: horizon, schema: schema, logger: logger)
                cursor = horizon
            }
            break
        }
        if handledCount > 0 {
            logger.debug("caught up", metadata: ["handled": "\(handledCount)", "cursor": "\(cursor)"])
        }
        return handledCount
    }

    /// Moves the consumer's cursor forward to `cursor` (never back: a concurrent catch-up may
    /// already be further).
    private func advance(consumer: String, to cursor: EventCursor, schema: String, logger: Logger) async throws {
        try await client.withConnection { connection in
            try await moveCursor(consumer: consumer, to: cursor, schema: schema, on: connection, logger: logger)
        }
    }

    /// The one statement that writes a consumer's cursor, forward only.
    private func moveCursor(
        consumer: String, to cursor: EventCursor, schema: String, on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.fetch(
            """
            UPDATE \(unescaped: schema).consumers
            SET last_xid = \(String(cursor.xid))::text::xid8, last_seq = \(cursor.seq), updated_at = \(clock.now())
            WHERE name = \(consumer)
              AND (last_xid, last_seq) < (\(String(cursor.xid))::text::xid8, \(cursor.seq))
            """,
            logger: logger
        )
    }

    /// The named consumer's cursor: the position of the last event it handled, or
    /// ``EventCursor/start`` if it has none yet.
    public func cursor(consumer: String) async throws -> EventCursor {
        let schema = try validSchema()
        let rows = try await client.fetch(
            "SELECT last_xid::text, last_seq FROM \(unescaped: schema).consumers WHERE name = \(consumer)",
            logger: logger
        )
        for try await (xid, seq) in rows.decode((String, Int64).self) {
            return EventCursor(xid: try Self.parseXid(xid), seq: seq)
        }
        return .start
    }

    /// Records on `connection` (normally inside the transaction that applies the event) that
    /// `consumer` has handled `eventId`. Returns false if it was already recorded, in which case
    /// the caller must not apply the event again. For events that arrive live (over ZeroMQ):
    /// a later catch-up then skips their handler.
    public func markHandled(
        consumer: String, eventId: UUID, on connection: PostgresConnection, logger: Logger? = nil
    ) async throws -> Bool {
        let schema = try validSchema()
        let rows = try await connection.fetch(
            """
            INSERT INTO \(unescaped: schema).handled (consumer, event_id, handled_at)
            VALUES (\(consumer), \(eventId), \(clock.now()))
            ON CONFLICT DO NOTHING
            RETURNING 1
            """,
            logger: logger ?? self.logger
        )
        var inserted = false
        for try await _ in rows { inserted = true }
        return inserted
    }

    private func registerConsumer(_ consumer: String, schema: String) async throws {
        try await client.fetch(
            """
            INSERT INTO \(unescaped: schema).consumers (name, last_xid, last_seq, updated_at)
            VALUES (\(consumer), '0'::xid8, 0, \(clock.now()))
            ON CONFLICT (name) DO NOTHING
            """,
            logger: logger
        )
    }

    /// One event in one transaction; true if the handler ran.
    private func handleOne(
        _ event: StoredEvent, consumer: String, schema: String, logger: Logger,
        handler: @Sendable (StoredEvent, PostgresConnection) async throws -> Void
    ) async throws -> Bool {
        do {
            return try await client.transaction(logger: logger) { connection in
                let rows = try await connection.fetch(
                    """
                    SELECT last_xid::text, last_seq FROM \(unescaped: schema).consumers
                    WHERE name = \(consumer) FOR UPDATE
                    """,
                    logger: logger
                )
                var current = EventCursor.start
                for try await (xid, seq) in rows.decode((String, Int64).self) {
                    current = EventCursor(xid: try Self.parseXid(xid), seq: seq)
                }
                guard current < event.cursor else { return false }

                let fresh = try await markHandled(consumer: consumer, eventId: event.id, on: connection, logger: logger)
                if fresh {
                    try await handler(event, connection)
                } else {
                    logger.debug("event already handled", metadata: ["eventId": "\(event.id)"])
                }
                try await moveCursor(
                    consumer: consumer, to: event.cursor, schema: schema, on: connection, logger: logger)
                return fresh
            }
        } catch {
            logger.warning(
                "event handler failed; catch-up stops before this event",
                metadata: [
                    "eventId": "\(event.id)", "topic": "\(event.topic)",
                    "error": "\(PostgresErrorText.describe(error))",
                ])
            throw PostgresErrorText.unwrapped(error)
        }
    }
}
