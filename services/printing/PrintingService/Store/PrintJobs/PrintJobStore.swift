import Contract
import Foundation
import Logging
import OrdersContract
import PostgresNIO
import PrintingContract
import Store

/// Print jobs in `printing.print_jobs`: created from `orders.paid` of postcard orders (one per
/// order), rendered by ``PrintJobRenderer``, then moved on by the printer. Every state change
/// writes its event to the event log in the same transaction.
public struct PrintJobStore: Sendable {
    /// The pool.
    public let client: PostgresClient
    /// Render attempts (`printing.render_jobs`).
    public let queue: JobQueue
    /// The event log the job events go to.
    public let events: EventLog
    /// Render attempts a job gets before it fails.
    public var renderAttempts = 5
    /// Called with each event after its transaction committed (the ZeroMQ nudge).
    public let announce: @Sendable (StoredEvent) -> Void
    let logger: Logger

    /// The job kind of a render attempt (tests use their own, apart from any running service).
    public var renderKind = "render_print_job"

    /// Creates the store; `announce` is usually ``ServiceKit/EventPublisher/announce(_:)``.
    public init(
        client: PostgresClient, queue: JobQueue, events: EventLog, logger: Logger,
        announce: @escaping @Sendable (StoredEvent) -> Void
    ) {
        self.client = client
        self.queue = queue
        self.events = events
        self.logger = logger
        self.announce = announce
    }

    /// Handles an `orders.paid` event on the consumer's transaction: a postcard order gets a
    /// `queued` job, a render attempt and `printing.job_accepted`; any other order, or an order
    /// that already has a job, changes nothing. Returns the accepted event, if any.
    @discardableResult
    public func accept(_ event: StoredEvent, on connection: PostgresConnection) async throws -> StoredEvent? {
        guard event.topic == Orders.Topic.paid else { return nil }
        let order = try Wire.makeDecoder().decode(Orders.OrderEvent.self, from: event.payload)
        guard let postcard = order.postcard, !postcard.recipients.isEmpty else { return nil }
        let id = UUID()
        let now = queue.clock.now()
        let document = String(decoding: try Wire.makeEncoder().encode(postcard), as: UTF8.self)
        let rows = try await connection.fetch(
            """
            INSERT INTO printing.print_jobs (id, order_id, user_id, status, cards, postcard, created_at, updated_at)
            VALUES (\(id), \(order.orderId), \(order.userId), 'queued', \(postcard.recipients.count),
                    \(document)::text::jsonb, \(now), \(now))
            ON CONFLICT (order_id) DO NOTHING
            RETURNING id
            """, logger: logger)
        var created = false
        for try await _ in rows { created = true }
        guard created else { return nil }
        try await queue.enqueue(
            kind: renderKind, payload: try Wire.makeEncoder().encode(["jobId": id.uuidString]),
            maxAttempts: renderAttempts,
            dedupeKey: id.uuidString, on: connection)
        logger.info("print job accepted", metadata: ["jobId": "\(id)", "orderId": "\(order.orderId)"])
        return try await append(
            Printing.Topic.jobAccepted, orderId: order.orderId, userId: order.userId, jobId: id, reason: nil,
            event.requestId, on: connection)
    }

    /// ``accept(_:on:)`` in the consumer's transaction `tx`.
    @discardableResult
    public func accept(_ event: StoredEvent, in tx: Transaction) async throws -> StoredEvent? {
        try await accept(event, on: tx.connection)
    }

    /// What a render attempt needs: the order, its owner and its postcard.
    struct Pending: Sendable {
        let id: UUID
        let orderId: String
        let userId: String
        let postcard: Orders.PostcardDetails
    }

    /// The job `id` while it waits for its PDF; nil once it has one or has failed.
    func pending(_ id: UUID) async throws -> Pending? {
        let rows = try await client.fetch(
            "SELECT order_id, user_id, postcard::text FROM printing.print_jobs WHERE id = \(id) AND status = 'queued'",
            logger: logger)
        for try await (orderId, userId, document) in rows.decode((String, String, String).self) {
            let postcard = try Wire.makeDecoder().decode(Orders.PostcardDetails.self, from: Data(document.utf8))
            return Pending(id: id, orderId: orderId, userId: userId, postcard: postcard)
        }
        return nil
    }

    /// A `queued` job got its PDF: `ready`, with `printing.job_ready`.
    func markReady(_ job: Pending, file: String) async throws {
        try await change(job.id, from: ["queued"], to: "ready", file: file, reason: nil, topic: Printing.Topic.jobReady)
    }

    /// Moves job `id` from one of `from` to `to` and publishes `topic`; false when the job is not
    /// in one of `from` (already moved on, or no such job).
    @discardableResult
    func change(_ id: UUID, from: [String], to: String, file: String? = nil, reason: String?, topic: String)
        async throws -> Bool
    {
        let now = queue.clock.now()
        let event: StoredEvent? = try await client.transaction(logger: logger) { connection in
            let rows = try await connection.fetch(
                """
                UPDATE printing.print_jobs
                SET status = \(to), pdf_file = coalesce(\(file), pdf_file), reason = coalesce(\(reason), reason),
                    updated_at = \(now)
                WHERE id = \(id) AND status = ANY(\(from))
                RETURNING order_id, user_id
                """, logger: logger)
            for try await (orderId, userId) in rows.decode((String, String).self) {
                return try await append(
                    topic, orderId: orderId, userId: userId, jobId: id, reason: reason, nil, on: connection)
            }
            return nil
        }
        guard let event else { return false }
        announce(event)
        logger.info("print job \(to)", metadata: ["jobId": "\(id)", "reason": "\(reason ?? "")"])
        return true
    }

    /// A job with what the printer's operations need besides its public view.
    struct Stored: Sendable {
        let job: Printing.PrintJob
        let file: String?
        let postcard: Orders.PostcardDetails
        let userId: String
    }

    /// Up to `limit` jobs after the job `after` in `(created_at, id)` order, of `status` when given.
    func page(status: String?, after: UUID?, limit: Int) async throws -> [Stored] {
        try await stored(
            """
            SELECT id, order_id, status, cards, created_at, reason, pdf_file, postcard::text, user_id
            FROM printing.print_jobs
            WHERE (\(status == nil) OR status = \(status ?? ""))
              AND (\(after)::uuid IS NULL
                   OR (created_at, id) > (SELECT created_at, id FROM printing.print_jobs WHERE id = \(after)::uuid))
            ORDER BY created_at, id LIMIT \(limit)
            """)
    }

    /// Job `id`, if there is one.
    func find(_ id: UUID) async throws -> Stored? {
        try await stored(
            """
            SELECT id, order_id, status, cards, created_at, reason, pdf_file, postcard::text, user_id
            FROM printing.print_jobs WHERE id = \(id)
            """
        ).first
    }

    /// Jobs and their cards created in `[start, end)`, by UTC day (`YYYY-MM-DD`) and status, in no order.
    func dayCounts(from start: Date, to end: Date) async throws -> [Printing.PrintJobDayCount] {
        let rows = try await client.fetch(
            """
            SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), status, count(*), sum(cards)::bigint
            FROM printing.print_jobs
            WHERE created_at >= \(start) AND created_at < \(end)
            GROUP BY 1, 2
            """, logger: logger)
        var counts: [Printing.PrintJobDayCount] = []
        for try await (day, status, jobs, cards) in rows.decode((String, String, Int64, Int64).self) {
            counts.append(.init(day: day, status: status, jobs: Int(jobs), cards: Int(cards)))
        }
        return counts
    }

    private func stored(_ query: PostgresQuery) async throws -> [Stored] {
        var found: [Stored] = []
        let rows = try await client.fetch(query, logger: logger)
        for try await row in rows {
            let (id, orderId, status, cards, created, reason, file, document, userId) = try row.decode(
                (UUID, String, String, Int, Date, String?, String?, String, String).self)
            let postcard = try Wire.makeDecoder().decode(Orders.PostcardDetails.self, from: Data(document.utf8))
            found.append(
                Stored(
                    job: Printing.PrintJob(
                        id: id.uuidString.lowercased(), orderId: orderId, status: status, cards: cards,
                        createdAt: created, reason: reason, size: postcard.size),
                    file: file, postcard: postcard, userId: userId))
        }
        return found
    }

    private func append(
        _ topic: String, orderId: String, userId: String, jobId: UUID, reason: String?, _ requestId: String?,
        on connection: PostgresConnection
    ) async throws -> StoredEvent {
        let payload = Printing.JobEvent(
            orderId: orderId, jobId: jobId.uuidString.lowercased(), reason: reason, userId: userId)
        return try await events.append(
            NewEvent(
                id: UUID(), topic: topic, producer: ServiceName.printing.rawValue,
                payload: try Wire.makeEncoder().encode(payload), requestId: requestId, createdAt: queue.clock.now()),
            on: connection, logger: logger)
    }
}
