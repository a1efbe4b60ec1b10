import Contract
import Crypto
import Foundation
import Logging
import OrdersContract
import PostgresNIO
import PrintingContract
import Store

/// E-cards in `printing.ecards`: one per paid e-card order (the order id is unique, so a replayed
/// or doubly handled `orders.paid` makes one), rendered by ``ECardRenderer`` into a JPEG kept in
/// the row and served by its token. The row becomes `ready` and `printing.ecard_rendered` is
/// appended in one transaction.
public struct ECardStore: Sendable {
    /// The pool.
    public let client: PostgresClient
    /// Render attempts (the print jobs' `printing.render_jobs`, with their own kind).
    public let queue: JobQueue
    /// The event log `printing.ecard_rendered` goes to.
    public let events: EventLog
    /// Where the gateway serves e-card images, e.g. `https://api.example.org/v1/ecards`; a
    /// card's link is this, a slash and its token.
    public let publicBaseURL: String
    /// Render attempts an e-card gets before it fails.
    public var renderAttempts = 5
    /// The job kind of a render attempt (tests use their own, apart from any running service).
    public var renderKind = "render_ecard"
    /// Called with each event after its transaction committed (the ZeroMQ nudge).
    public let announce: @Sendable (StoredEvent) -> Void
    let logger: Logger

    /// Creates the store; `announce` is usually ``ServiceKit/EventPublisher/announce(_:)``.
    public init(
        client: PostgresClient, queue: JobQueue, events: EventLog, publicBaseURL: String, logger: Logger,
        announce: @escaping @Sendable (StoredEvent) -> Void
    ) {
        self.client = client
        self.queue = queue
        self.events = events
        self.publicBaseURL = publicBaseURL.hasSuffix("/") ? String(publicBaseURL.dropLast()) : publicBaseURL
        self.logger = logger
        self.announce = announce
    }

    /// A fresh token: 256 random bits, base64url (43 characters).
    static func newToken() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64URL
    }

    /// Handles an `orders.paid` event on the consumer's transaction: an e-card order with
    /// recipients gets a `queued` e-card and a render attempt; anything else, or an order that
    /// already has one, changes nothing. True when an e-card was created.
    @discardableResult
    public func accept(_ event: StoredEvent, on connection: PostgresConnection) async throws -> Bool {
        guard event.topic == Orders.Topic.paid else { return false }
        let order = try Wire.makeDecoder().decode(Orders.OrderEvent.self, from: event.payload)
        guard let ecard = order.ecard, !ecard.recipients.isEmpty else { return false }
        let id = UUID()
        let now = queue.clock.now()
        let document = String(decoding: try Wire.makeEncoder().encode(ecard), as: UTF8.self)
        let rows = try await connection.fetch(
            """
            INSERT INTO printing.ecards (id, order_id, user_id, token, status, ecard, created_at, updated_at)
            VALUES (\(id), \(order.orderId), \(order.userId), \(Self.newToken()), 'queued', \(document)::text::jsonb,
                    \(now), \(now))
            ON CONFLICT (order_id) DO NOTHING
            RETURNING id
            """, logger: logger)
        var created = false
        for try await _ in rows { created = true }
        guard created else { return false }
        try await queue.enqueue(
            kind: renderKind, payload: try Wire.makeEncoder().encode(["ecardId": id.uuidString]),
            maxAttempts: renderAttempts, dedupeKey: "ecard:\(id.uuidString)", on: connection)
        logger.info("e-card accepted", metadata: ["ecardId": "\(id)", "orderId": "\(order.orderId)"])
        return true
    }

    /// ``accept(_:on:)`` in the consumer's transaction `tx`.
    @discardableResult
    public func accept(_ event: StoredEvent, in tx: Transaction) async throws -> Bool {
        try await accept(event, on: tx.connection)
    }

    /// What a render attempt needs.
    struct Pending: Sendable {
        let id: UUID
        let orderId: String
        let userId: String
        let token: String
        let ecard: Orders.EcardDetails
    }

    /// The e-card `id` while it waits for its image; nil once it has one or has failed.
    func pending(_ id: UUID) async throws -> Pending? {
        let rows = try await client.fetch(
            "SELECT order_id, user_id, token, ecard::text FROM printing.ecards WHERE id = \(id) AND status = 'queued'",
            logger: logger)
        for try await (orderId, userId, token, document) in rows.decode((String, String, String, String).self) {
            let ecard = try Wire.makeDecoder().decode(Orders.EcardDetails.self, from: Data(document.utf8))
            return Pending(id: id, orderId: orderId, userId: userId, token: token, ecard: ecard)
        }
        return nil
    }

    /// The public link of the image with `token`.
    public func url(token: String) -> String { "\(publicBaseURL)/\(token)" }

    /// Stores the image of a `queued` e-card, makes it `ready` and appends
    /// `printing.ecard_ready` (for orders) and, unless the phone sends the card itself,
    /// `printing.ecard_rendered` (notify mails it), in one transaction; false when it was no
    /// longer `queued`.
    @discardableResult
    func markReady(_ card: Pending, image: ECardImage.Rendered, senderName: String) async throws -> Bool {
        let now = queue.clock.now()
        let event = Printing.ECardRendered(
            userId: card.userId, orderId: card.orderId, senderName: senderName, imageUrl: url(token: card.token),
            message: card.ecard.greeting ?? "", recipients: card.ecard.recipients.map(\.email),
            imageToken: card.token)
        let ready = Printing.JobEvent(
            orderId: card.orderId, jobId: card.id.uuidString.lowercased(), userId: card.userId,
            imageUrl: url(token: card.token))
        // A card the phone sends itself gets no mail from notify: only orders hears of it.
        let mailed = card.ecard.delivery != Orders.EcardDelivery.device.rawValue
        let stored: [StoredEvent]? = try await client.transaction(logger: logger) { connection in
            let rows = try await connection.fetch(
                """
                UPDATE printing.ecards
                SET status = 'ready', image = \(ByteBuffer(bytes: image.jpeg)), width = \(image.width),
                    height = \(image.height), updated_at = \(now)
                WHERE id = \(card.id) AND status = 'queued'
                RETURNING id
                """, logger: logger)
            var updated = false
            for try await _ in rows { updated = true }
            guard updated else { return nil }
            var appended = [
                NewEvent(
                    id: UUID(), topic: Printing.Topic.ecardReady, producer: ServiceName.printing.rawValue,
                    payload: try Wire.makeEncoder().encode(ready), requestId: nil, createdAt: now)
            ]
            if mailed {
                appended.append(
                    NewEvent(
                        id: UUID(), topic: Printing.ECardRendered.topic, producer: ServiceName.printing.rawValue,
                        payload: try Wire.makeEncoder().encode(event), requestId: nil, createdAt: now))
            }
            return try await events.append(appended, on: connection, logger: logger)
        }
        guard let stored else { return false }
        stored.forEach(announce)
        logger.info("e-card ready", metadata: ["ecardId": "\(card.id)", "bytes": "\(image.jpeg.count)"])
        return true
    }

    /// A `queued` e-card whose last attempt failed: `failed` with the reason, and
    /// `printing.ecard_failed` in the same transaction (orders refunds the order; notify tells
    /// the buyer).
    func markFailed(_ id: UUID, reason: String) async throws {
        let now = queue.clock.now()
        let stored: StoredEvent? = try await client.transaction(logger: logger) { connection in
            let rows = try await connection.fetch(
                """
                UPDATE printing.ecards SET status = 'failed', reason = \(reason), updated_at = \(now)
                WHERE id = \(id) AND status = 'queued'
                RETURNING order_id, user_id
                """, logger: logger)
            for try await (orderId, userId) in rows.decode((String, String).self) {
                let payload = Printing.JobEvent(
                    orderId: orderId, jobId: id.uuidString.lowercased(), reason: reason, userId: userId)
                return try await events.append(
                    NewEvent(
                        id: UUID(), topic: Printing.Topic.ecardFailed, producer: ServiceName.printing.rawValue,
                        payload: try Wire.makeEncoder().encode(payload), requestId: nil, createdAt: now),
                    on: connection, logger: logger)
            }
            return nil
        }
        guard let stored else { return }
        announce(stored)
        logger.warning("e-card failed", metadata: ["ecardId": "\(id)", "reason": "\(reason)"])
    }

    /// The JPEG of the ready e-card with `token`; 404 for any other token.
    public func image(token: String) async throws -> Printing.ECardImage.Reply {
        guard (20...100).contains(token.count) else { throw ServiceError.notFound("no such e-card") }
        let rows = try await client.fetch(
            "SELECT image FROM printing.ecards WHERE token = \(token) AND status = 'ready'", logger: logger)
        for try await bytes in rows.decode(ByteBuffer.self) {
            return .init(mediaType: "image/jpeg", data: Data(bytes.readableBytesView).base64EncodedString())
        }
        throw ServiceError.notFound("no such e-card")
    }
}
