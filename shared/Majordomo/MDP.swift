import ZeroMQ

/// Wire constants of the Majordomo Protocol, MDP/0.1 (ZeroMQ RFC 7), and its management
/// interface MMI (RFC 8).
public enum MDP {
    /// Frame 1 of every client command: "MDPC01".
    public static let clientHeader: Frame = Array("MDPC01".utf8)
    /// Frame 1 of every worker command: "MDPW01".
    public static let workerHeader: Frame = Array("MDPW01".utf8)
    /// The service-name prefix the broker answers itself (RFC 8).
    public static let mmiPrefix = "mmi."

    /// The one-byte worker commands of RFC 7.
    public enum Command: UInt8, Sendable {
        case ready = 0x01
        case request = 0x02
        case reply = 0x03
        case heartbeat = 0x04
        case disconnect = 0x05

        /// The command as its frame (shared, not allocated per use).
        public var frame: Frame { Self.frames[Int(rawValue)] }

        fileprivate static let frames: [Frame] = (0...5).map { [UInt8($0)] }
    }

    /// A received frame as a ``Frame``: the protocol's own frames (the headers, a command byte)
    /// are the shared constants, so only the frames that carry data are allocated.
    public static func frame(_ bytes: UnsafeRawBufferPointer) -> Frame {
        switch bytes.count {
        case 0:
            return []
        case 1:
            return bytes[0] <= Command.disconnect.rawValue ? Command.frames[Int(bytes[0])] : Array(bytes)
        case 6:
            if bytes.elementsEqual(workerHeader) { return workerHeader }
            if bytes.elementsEqual(clientHeader) { return clientHeader }
            return Array(bytes)
        default:
            return Array(bytes)
        }
    }

    /// A worker command as sent on a DEALER socket: `["", "MDPW01", command, extra...]`.
    public static func workerCommand(_ command: Command, _ extra: [Frame] = []) -> Message {
        [[], workerHeader, command.frame] + extra
    }
}
