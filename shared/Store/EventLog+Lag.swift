import Foundation
import Logging
import PostgresNIO

/// How far a consumer is behind the log: the events of its topics it has not handled yet.
public struct ConsumerLag: Sendable, Equatable {
    /// Unhandled events of the consumer's topics (counted up to ``EventLog/lagCountLimit``).
    public let events: Int
    /// When the oldest of them was appended, or nil when there is none.
    public let oldest: Date?

    /// Creates a lag figure.
    public init(events: Int, oldest: Date?) {
        self.events = events
        self.oldest = oldest
    }

    /// Seconds from the oldest unhandled event to `now` (0 when there is none).
    public func seconds(now: Date) -> Double {
        oldest.map { max(0, now.timeIntervalSince($0)) } ?? 0
    }
}

extension EventLog {
    /// The most events ``lag(consumer:topics:)`` counts: a consumer further behind reads as this.
    public static let lagCountLimit = 100_000

    /// The events of `topics` after `consumer`'s cursor that it has not handled: events handled
    /// live (over ZeroMQ) are in `handled` before the next catch-up moves the cursor over them,
    /// so they are not counted. A consumer that never ran is behind by everything in its topics.
    public func lag(consumer: String, topics: [String]) async throws -> ConsumerLag {
        let schema = try validSchema()
        let cursor = try await self.cursor(consumer: consumer)
        let rows = try await client.fetch(
            """
            SELECT count(*), min(created_at) FROM (
                SELECT l.created_at FROM \(unescaped: schema).log l
                WHERE (l.xid, l.seq) > (\(String(cursor.xid))::text::xid8, \(cursor.seq))
                  AND l.topic = ANY(\(topics))
                  AND NOT EXISTS (
                      SELECT 1 FROM \(unescaped: schema).handled h WHERE h.consumer = \(consumer) AND h.event_id = l.id)
                LIMIT \(Self.lagCountLimit)
            ) pending
            """,
            logger: logger
        )
        for try await (count, oldest) in rows.decode((Int, Date?).self) {
            return ConsumerLag(events: count, oldest: oldest)
        }
        return ConsumerLag(events: 0, oldest: nil)
    }
}
