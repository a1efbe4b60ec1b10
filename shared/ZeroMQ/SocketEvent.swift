import CZeroMQ

/// A connection event reported by ``Socket/monitor(_:events:)``.
public enum SocketEvent: Sendable, Equatable {
    case connected, disconnected, other(UInt16)

    /// `ZMQ_EVENT_CONNECTED | ZMQ_EVENT_DISCONNECTED`, the events Backplane watches.
    public static let connectionEvents: Int32 = ZMQ_EVENT_CONNECTED | ZMQ_EVENT_DISCONNECTED

    /// Decodes a monitor message (frame 1: 16-bit event and 32-bit value; frame 2: endpoint).
    public init?(_ message: Message) {
        guard let first = message.first, first.count >= 2 else { return nil }
        let event = UInt16(first[0]) | UInt16(first[1]) << 8
        switch Int32(event) {
        case ZMQ_EVENT_CONNECTED: self = .connected
        case ZMQ_EVENT_DISCONNECTED: self = .disconnected
        default: self = .other(event)
        }
    }
}
