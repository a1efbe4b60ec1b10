/// A position in the event log: the pair (transaction id, sequence number) by which events are
/// ordered. Every event that becomes readable later sorts after every cursor already handed out,
/// which is what makes reading by cursor skip nothing.
public struct EventCursor: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The top-level transaction id (`xid8`) of the transaction that appended the event.
    public let xid: UInt64
    /// The event's `seq` (a `bigserial`, assigned at insert).
    public let seq: Int64

    /// Creates a cursor.
    public init(xid: UInt64, seq: Int64) {
        self.xid = xid
        self.seq = seq
    }

    /// Before every event: reading after it starts at the beginning of the log.
    public static let start = EventCursor(xid: 0, seq: 0)

    /// Orders by `xid`, then `seq`.
    public static func < (lhs: EventCursor, rhs: EventCursor) -> Bool {
        (lhs.xid, lhs.seq) < (rhs.xid, rhs.seq)
    }

    /// `xid:seq`.
    public var description: String { "\(xid):\(seq)" }
}
