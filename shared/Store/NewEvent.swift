import Foundation

/// An event to append to the log, inside the transaction that makes the state change it reports.
public struct NewEvent: Sendable, Equatable {
    /// Unique id; consumers deduplicate on it.
    public var id: UUID
    /// What happened, e.g. `orders.paid`.
    public var topic: String
    /// The service that produced it, e.g. `orders`.
    public var producer: String
    /// The event body: a JSON document, as UTF-8 bytes.
    public var payload: Data
    /// The id of the request that caused it, for tracing, if any.
    public var requestId: String?
    /// When it happened, from the producer's ``WallClock``.
    public var createdAt: Date
    /// The W3C `traceparent` of the work that caused it, so that a consumer's work joins that
    /// trace; nil: the appending task's current span's (when tracing is on).
    public var traceparent: String?

    /// Creates an event.
    public init(
        id: UUID = UUID(), topic: String, producer: String, payload: Data,
        requestId: String? = nil, createdAt: Date, traceparent: String? = nil
    ) {
        self.traceparent = traceparent
        self.id = id
        self.topic = topic
        self.producer = producer
        self.payload = payload
        self.requestId = requestId
        self.createdAt = createdAt
    }
}
