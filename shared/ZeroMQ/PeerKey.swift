/// A peer's routing id as a dictionary key, made from its bytes without allocating when it is at
/// most 16 bytes long (libzmq's own ids are 5).
public struct PeerKey: Hashable, Sendable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0
    private let count: Int
    /// The bytes of a longer id.
    private var long: Frame?

    /// The key of the id `bytes`.
    public init(_ bytes: UnsafeRawBufferPointer) {
        count = bytes.count
        guard count <= 16 else {
            long = Array(bytes)
            return
        }
        withUnsafeMutableBytes(of: &low) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.prefix(8))) }
        if count > 8 {
            withUnsafeMutableBytes(of: &high) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[8...])) }
        }
    }

    /// The key of the id `frame`.
    public init(_ frame: Frame) {
        self = frame.withUnsafeBytes { PeerKey($0) }
    }
}
