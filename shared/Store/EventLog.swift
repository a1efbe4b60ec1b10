import Foundation
import Logging
import PostgresNIO
import Telemetry

/// The shared, append-only event log (transactional outbox) in schema `events`.
///
/// A producer calls ``append(_:on:logger:)`` on the connection of the transaction that makes
/// the state change, so the event exists if and only if the change committed. Readers use
/// ``fetch(after:topics:limit:)`` or, as a named consumer with a stored cursor,
/// ``catchUp(consumer:topics:batch:handler:)``.
///
/// Reading never skips an event that commits late: a `bigserial` is assigned at insert, not at
/// commit, so "`seq` > last seen" can pass over a row whose transaction is still open. A reader
/// therefore takes only rows whose transaction id is below `pg_snapshot_xmin(pg_current_snapshot())`
/// (every such transaction has finished) and orders them by `(xid, seq)`; any row that becomes
/// visible later has a transaction id at or above that bound, so it sorts after every cursor
/// already handed out. The cost: while some transaction is open (anywhere in the cluster),
/// events appended after it started wait until it ends.
public struct EventLog: Sendable {
    /// The pool used by the reading and catch-up methods.
    public let client: PostgresClient
    /// The schema holding the log, `events` in production (tests use their own).
    public let schema: String
    /// The clock for `handled_at` and cursor `updated_at`.
    public let clock: any WallClock
    /// The default logger for queries.
    public let logger: Logger

    /// Creates a handle on the event log in `schema`.
    public init(
        client: PostgresClient, schema: String = "events", clock: any WallClock = SystemClock(), logger: Logger
    ) {
        self.client = client
        self.schema = schema
        self.clock = clock
        self.logger = logger
    }

    /// Applies ``migrations(schema:)`` to this log's schema with a ``Migrator``.
    public func migrate() async throws {
        try await Migrator(client: client, schema: schema, logger: logger).migrate(Self.migrations(schema: schema))
    }

    /// Appends `event` on `connection`, which should be inside the caller's transaction together
    /// with the state change the event reports; the event is visible to readers only once that
    /// transaction commits, and never if it rolls back.
    @discardableResult
    public func append(_ event: NewEvent, on connection: PostgresConnection, logger: Logger? = nil) async throws
        -> StoredEvent
    {
        let schema = try validSchema()
        guard let payload = String(data: event.payload, encoding: .utf8) else {
            throw StoreError(.invalidArgument, "payload of event \(event.id) (\(event.topic)) is not UTF-8 JSON")
        }
        let traceparent = event.traceparent ?? Traces.currentTraceparent
        let rows = try await connection.fetch(
            """
            INSERT INTO \(unescaped: schema).log (id, topic, producer, payload, request_id, created_at, traceparent)
            VALUES (\(event.id), \(event.topic), \(event.producer), \(payload)::text::jsonb, \(event.requestId), \(event.createdAt), \(traceparent))
            RETURNING seq, xid::text, id, topic, producer, payload::text, request_id, created_at, traceparent
            """,
            logger: logger ?? self.logger
        )
        for try await row in rows {
            return try Self.decodeEvent(row)
        }
        throw StoreError(.unexpectedResult, "appending event \(event.id) returned no row")
    }

    /// Appends `events` on `connection` in one statement (one round trip), in the order given;
    /// otherwise the same as ``append(_:on:logger:)``.
    @discardableResult
    public func append(_ events: [NewEvent], on connection: PostgresConnection, logger: Logger? = nil) async throws
        -> [StoredEvent]
    {
        guard events.count > 1 else {
            guard let event = events.first else { return [] }
            return [try await append(event, on: connection, logger: logger)]
        }
        let schema = try validSchema()
        var payloads: [String] = []
        for event in events {
            guard let payload = String(data: event.payload, encoding: .utf8) else {
                throw StoreError(.invalidArgument, "payload of event \(event.id) (\(event.topic)) is not UTF-8 JSON")
            }
            payloads.append(payload)
        }
        // Request ids and trace contexts travel as text with '' for none (arrays of optionals do
        // not encode).
        let current = Traces.currentTraceparent
        let rows = try await connection.fetch(
            """
            INSERT INTO \(unescaped: schema).log (id, topic, producer, payload, request_id, created_at, traceparent)
            SELECT e.id, e.topic, e.producer, e.payload::jsonb, NULLIF(e.request_id, ''), e.created_at,
                   NULLIF(e.traceparent, '')
            FROM unnest(\(events.map(\.id))::uuid[], \(events.map(\.topic))::text[], \(events.map(\.producer))::text[],
                        \(payloads)::text[], \(events.map { $0.requestId ?? "" })::text[],
                        \(events.map(\.createdAt))::timestamptz[], \(events.map { $0.traceparent ?? current ?? "" })::text[])
                 WITH ORDINALITY AS e(id, topic, producer, payload, request_id, created_at, traceparent, position)
            ORDER BY e.position
            RETURNING seq, xid::text, id, topic, producer, payload::text, request_id, created_at, traceparent
            """,
            logger: logger ?? self.logger
        )
        var stored: [StoredEvent] = []
        for try await row in rows { stored.append(try Self.decodeEvent(row)) }
        guard stored.count == events.count else {
            throw StoreError(.unexpectedResult, "appending \(events.count) events returned \(stored.count) rows")
        }
        return stored.sorted { $0.seq < $1.seq }
    }

    /// Up to `limit` events after `cursor`, in `(xid, seq)` order, from transactions that have all
    /// finished; `topics` (if given) restricts the topics. Pass the last returned event's
    /// ``StoredEvent/cursor`` to read on.
    public func fetch(after cursor: EventCursor, topics: [String]? = nil, limit: Int = 100) async throws
        -> [StoredEvent]
    {
        try await client.withConnection { connection in
            try await fetch(after: cursor, topics: topics, limit: limit, on: connection)
        }
    }

    /// ``fetch(after:topics:limit:)`` on a given connection.
    public func fetch(
        after cursor: EventCursor, topics: [String]?, limit: Int, on connection: PostgresConnection
    ) async throws -> [StoredEvent] {
        try await fetchPage(after: cursor, topics: topics, limit: limit, on: connection).events
    }

    /// One page of ``fetch(after:topics:limit:)``, and how far the read looked.
    public struct Page: Sendable {
        /// Up to `limit` events after the cursor that pass the filter, in log order.
        public var events: [StoredEvent]
        /// The last readable position in the log when the page was read (nil for an empty log).
        /// When `events` holds fewer than `limit` events, every readable event up to here was
        /// looked at, so a reader with the same filter may move its cursor here even though the
        /// events in between did not pass the filter (no event becomes readable at or before it
        /// later). Without that, a reader whose topics are rare would look through the same
        /// growing stretch of other producers' events at every read.
        public var horizon: EventCursor?
    }

    /// ``fetch(after:topics:limit:on:)``, with the page's ``Page/horizon``, in one statement (both
    /// parts see the same snapshot).
    public func fetchPage(
        after cursor: EventCursor, topics: [String]?, limit: Int, on connection: PostgresConnection
    ) async throws -> Page {
        let schema = try validSchema()
        guard limit > 0 else { throw StoreError(.invalidArgument, "fetch limit must be positive, got \(limit)") }
        let allTopics = topics == nil
        let rows = try await connection.fetch(
            """
            WITH horizon AS MATERIALIZED (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin),
            page AS (
                SELECT seq, xid, id, topic, producer, payload, request_id, created_at, traceparent
                FROM \(unescaped: schema).log
                WHERE xid < (SELECT xmin FROM horizon)
                  AND (xid, seq) > (\(String(cursor.xid))::text::xid8, \(cursor.seq))
                  AND (\(allTopics) OR topic = ANY(\(topics ?? [])))
                ORDER BY log.xid, log.seq
                LIMIT \(limit)
            ),
            last AS (
                SELECT xid, seq FROM \(unescaped: schema).log
                WHERE xid < (SELECT xmin FROM horizon)
                ORDER BY xid DESC, seq DESC
                LIMIT 1
            )
            SELECT false, seq, xid::text, id, topic, producer, payload::text, request_id, created_at, traceparent
            FROM page
            UNION ALL
            SELECT true, seq, xid::text, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM last
            """,
            logger: logger
        )
        var page = Page(events: [], horizon: nil)
        for try await row in rows {
            let (isHorizon, seq, xid, id, topic, producer, payload, requestId, createdAt, traceparent) = try row.decode(
                (Bool, Int64, String, UUID?, String?, String?, String?, String?, Date?, String?).self)
            if isHorizon {
                page.horizon = EventCursor(xid: try Self.parseXid(xid), seq: seq)
                continue
            }
            guard let id, let topic, let producer, let payload, let createdAt else {
                throw StoreError(.unexpectedResult, "event \(seq) was read with a missing column")
            }
            page.events.append(
                StoredEvent(
                    seq: seq, xid: try Self.parseXid(xid), id: id, topic: topic, producer: producer,
                    payload: Data(payload.utf8), requestId: requestId, createdAt: createdAt,
                    traceparent: traceparent))
        }
        page.events.sort { $0.cursor < $1.cursor }
        return page
    }

    func validSchema() throws -> String {
        try SQLIdentifier.validated(schema, role: "event log schema")
    }

    static func decodeEvent(_ row: PostgresRow) throws -> StoredEvent {
        let (seq, xidText, id, topic, producer, payload, requestId, createdAt, traceparent) = try row.decode(
            (Int64, String, UUID, String, String, String, String?, Date, String?).self
        )
        return StoredEvent(
            seq: seq, xid: try parseXid(xidText), id: id, topic: topic, producer: producer,
            payload: Data(payload.utf8), requestId: requestId, createdAt: createdAt, traceparent: traceparent
        )
    }

    static func parseXid(_ text: String) throws -> UInt64 {
        guard let xid = UInt64(text) else {
            throw StoreError(.unexpectedResult, "transaction id '\(text)' is not an unsigned 64-bit number")
        }
        return xid
    }
}
