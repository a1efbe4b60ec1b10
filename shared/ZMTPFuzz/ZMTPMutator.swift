import ServiceKit

/// Breaks streams the ways a hostile or broken peer would: bits flipped, bytes set to the values
/// a parser trips on (flags, sizes near the limits), bytes inserted, removed, repeated, the stream
/// cut short or spliced with another.
public enum ZMTPMutator {
    /// Values worth trying in any byte: each flag bit, their mix, the reserved bits, 0x7F/0x80, 0xFF.
    static let interestingBytes: [UInt8] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 0x7F, 0x80, 0xF8, 0xFE, 0xFF]

    /// `bytes` with 1 to `maxEdits` random edits; `maxMessageSize` steers the sizes written into
    /// 8-byte size fields to either side of the limit.
    public static func mutate(
        _ bytes: [UInt8], maxEdits: Int = 4, maxMessageSize: Int, splice: [UInt8] = [],
        using random: inout SeededRandom
    ) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<random.int(1...max(1, maxEdits)) {
            let position = bytes.isEmpty ? 0 : random.below(bytes.count)
            switch random.below(9) {
            case 0 where !bytes.isEmpty:
                bytes[position] ^= 1 << random.below(8)
            case 1 where !bytes.isEmpty:
                bytes[position] = random.pick(interestingBytes)
            case 2 where !bytes.isEmpty:
                bytes[position] = random.byte()
            case 3:
                let count = random.int(1...8)
                bytes.insert(contentsOf: random.bytes(count), at: position)
            case 4 where !bytes.isEmpty:
                bytes.removeSubrange(position..<min(bytes.count, position + random.int(1...16)))
            case 5 where !bytes.isEmpty:
                let end = min(bytes.count, position + random.int(1...32))
                let target = random.int(0...bytes.count)
                bytes.insert(contentsOf: Array(bytes[position..<end]), at: target)
            case 6:
                bytes.removeSubrange(position..<bytes.count)
            case 7:
                let sizes: [UInt64] = [
                    0, 255, 256, UInt64(maxMessageSize) - 1, UInt64(maxMessageSize), UInt64(maxMessageSize) + 1,
                    1 << 31, 1 << 32, 1 << 63, UInt64.max,
                ]
                let size = ZMTPSession.bigEndian(random.pick(sizes), bytes: 8)
                let end = min(bytes.count, position + 8)
                bytes.replaceSubrange(position..<end, with: size)
            default:
                guard !splice.isEmpty else { continue }
                let from = random.below(splice.count)
                let end = min(splice.count, from + random.int(1...64))
                bytes.insert(contentsOf: splice[from..<end], at: position)
            }
        }
        return bytes
    }
}
