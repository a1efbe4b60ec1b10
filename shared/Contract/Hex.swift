/// Lower-case hexadecimal text of bytes (digests, derived ids). `String(format: "%02x")` per
/// byte costs a formatter call each; this is one pass into one string.
extension Sequence<UInt8> {
    public var lowercaseHex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
