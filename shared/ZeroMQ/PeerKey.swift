/// A peer's routing id as a dictionary key; no allocation for ids up to 16 bytes (generated ones are 5).
public struct PeerKey: Hashable, Sendable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0
    private let count: Int
    /// Ids over 16 bytes.
    private var long: Frame?

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

    public init(_ frame: Frame) {
        self = frame.withUnsafeBytes { PeerKey($0) }
    }
}
