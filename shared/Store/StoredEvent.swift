import Foundation

/// An event as read back from the log, with its position.
public struct StoredEvent: Sendable, Equatable {
    /// The event's sequence number (assigned at insert, so not in commit order).
    public let seq: Int64
    /// The top-level transaction id that appended it.
    public let xid: UInt64
    /// Unique id.
    public let id: UUID
    /// What happened, e.g. `orders.paid`.
    public let topic: String
    /// The service that produced it.
    public let producer: String
    /// The JSON body, as UTF-8 bytes (as PostgreSQL normalises `jsonb`, not byte-for-byte what
    /// was appended).
    public let payload: Data
    /// The id of the request that caused it, if any.
    public let requestId: String?
    /// When it happened, by the producer's clock.
    public let createdAt: Date
    /// The W3C `traceparent` of the work that appended it, if it was traced.
    public let traceparent: String?

    /// Creates a stored event (normally only the event log does).
    public init(
        seq: Int64, xid: UInt64, id: UUID, topic: String, producer: String, payload: Data,
        requestId: String?, createdAt: Date, traceparent: String? = nil
    ) {
        self.traceparent = traceparent
        self.seq = seq
        self.xid = xid
        self.id = id
        self.topic = topic
        self.producer = producer
        self.payload = payload
        self.requestId = requestId
        self.createdAt = createdAt
    }

    /// The event's position; reading after it returns the events that follow.
    public var cursor: EventCursor { EventCursor(xid: xid, seq: seq) }
}
