import ZeroMQ

/// Wire constants of the Majordomo Protocol MDP/0.1 (RFC 7) and its management interface (RFC 8).
public enum MDP {
    public static let clientHeader: Frame = Array("MDPC01".utf8)
    public static let workerHeader: Frame = Array("MDPW01".utf8)
    /// Services the broker answers itself (RFC 8).
    public static let mmiPrefix = "mmi."

    /// The worker commands of RFC 7.
    public enum Command: UInt8, Sendable {
        case ready = 0x01
        case request = 0x02
        case reply = 0x03
        case heartbeat = 0x04
        case disconnect = 0x05

        /// Shared, not allocated per use.
        public var frame: Frame { Self.frames[Int(rawValue)] }

        fileprivate static let frames: [Frame] = (0...5).map { [UInt8($0)] }
    }

    /// A received frame; the protocol's own frames (headers, command bytes) are the shared constants.
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

    /// `["", "MDPW01", command, extra...]`, as sent on a DEALER socket.
    public static func workerCommand(_ command: Command, _ extra: [Frame] = []) -> Message {
        [[], workerHeader, command.frame] + extra
    }
}
