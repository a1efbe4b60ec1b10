/// The header of a Windows bitmap: its size, bit depth, row order, palette or channel masks and
/// where its pixels are, checked against the length of the file so that a truncated bitmap is
/// caught without decoding it. Uncompressed bitmaps of 1, 4, 8, 16, 24 and 32 bits are accepted
/// (16 and 32 also with `BI_BITFIELDS` masks); RLE is refused.
struct BMPHeader {
    /// Where a channel is in a 16- or 32-bit pixel: the bits of `mask`, shifted down by `shift`.
    struct Channel: Hashable {
        let mask: UInt32
        let shift: UInt32
        /// The largest value of the channel (its mask shifted down); 0 for an absent channel.
        let maximum: UInt32

        init(mask: UInt32) {
            self.mask = mask
            shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
            maximum = mask >> shift
        }

        /// The channel of `pixel` scaled to 0...255.
        func value(_ pixel: UInt32) -> UInt8 {
            guard maximum > 0 else { return 0 }
            let raw = UInt64((pixel & mask) >> shift)
            return UInt8(truncatingIfNeeded: (raw * 255 + UInt64(maximum) / 2) / UInt64(maximum))
        }
    }

    let width: Int
    let height: Int
    let bitsPerPixel: Int
    /// Where the first stored row starts in the file.
    let pixelOffset: Int
    /// Bytes per stored row (padded to 4).
    let rowBytes: Int
    /// Whether the first stored row is the top one (a negative height in the header).
    let topDown: Bool
    /// The colours of a 1-, 4- or 8-bit bitmap, as 0xRRGGBB; empty at 16 bits and more.
    let palette: [UInt32]
    /// Red, green, blue and alpha of a 16- or 32-bit pixel (alpha's mask 0 when there is none).
    let red: Channel
    let green: Channel
    let blue: Channel
    let alpha: Channel

    /// Reads and checks the headers of `bytes` against `limits`.
    static func read(_ bytes: [UInt8], limits: ImageLimits) throws(ImageRejection) -> BMPHeader {
        guard bytes.count >= 30 else { throw ImageRejection(.truncated, "the BMP file ends inside its header") }
        func uint(_ offset: Int, _ count: Int) -> Int {
            (0..<count).reversed().reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
        }
        let pixelOffset = uint(10, 4)
        let headerSize = uint(14, 4)
        guard [12, 40, 52, 56, 108, 124].contains(headerSize), bytes.count >= 14 + min(headerSize, 40) else {
            throw ImageRejection(.corrupt, "the BMP header is not one of the known sizes (\(headerSize) bytes)")
        }
        let width: Int
        let rawHeight: Int
        let bits: Int
        var compression = 0
        var colorsUsed = 0
        if headerSize == 12 {
            width = uint(18, 2)
            rawHeight = uint(20, 2)
            bits = uint(24, 2)
        } else {
            width = Int(Int32(truncatingIfNeeded: UInt32(uint(18, 4))))
            rawHeight = Int(Int32(truncatingIfNeeded: UInt32(uint(22, 4))))
            bits = uint(28, 2)
            compression = uint(30, 4)
            colorsUsed = uint(46, 4)
        }
        let height = abs(rawHeight)
        guard width > 0, height > 0, [1, 4, 8, 16, 24, 32].contains(bits) else {
            throw ImageRejection(.corrupt, "the BMP header gives \(width)×\(rawHeight) pixels at \(bits) bits")
        }
        guard width.multipliedReportingOverflow(by: height).partialValue <= limits.maxPixels,
            width <= limits.maxPixels, height <= limits.maxPixels
        else {
            throw ImageRejection(
                .tooManyPixels, "the BMP claims \(width)×\(height) pixels; the limit is \(limits.maxPixels) pixels")
        }
        guard compression == 0 || compression == 3 else {
            throw ImageRejection(.unsupportedType, "compressed BMP files (RLE) are not accepted; send PNG or JPEG")
        }
        guard compression == 0 || bits == 16 || bits == 32 else {
            throw ImageRejection(.corrupt, "the BMP gives channel masks (BI_BITFIELDS) for \(bits)-bit pixels")
        }
        let rowBytes = (width * bits + 31) / 32 * 4
        guard pixelOffset >= 14 + headerSize, bytes.count >= pixelOffset + rowBytes * height else {
            throw ImageRejection(
                .truncated,
                "the BMP file has \(bytes.count) bytes but its \(width)×\(height) pixels need \(pixelOffset + rowBytes * height)"
            )
        }
        var palette: [UInt32] = []
        var masks: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        switch bits {
        case 1, 4, 8:
            // The palette follows the header; OS/2 1.x headers (12 bytes) have 3-byte entries.
            let entry = headerSize == 12 ? 3 : 4
            let start = 14 + headerSize
            let room = (pixelOffset - start) / entry
            let count = min(colorsUsed > 0 ? colorsUsed : 1 << bits, 1 << bits, room)
            guard count > 0 else { throw ImageRejection(.corrupt, "the \(bits)-bit BMP has no palette") }
            palette = (0..<count).map { index in
                let at = start + index * entry
                return UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at])
            }
        case 16:
            masks = (0x7C00, 0x03E0, 0x001F, 0)
        default:
            masks = (0xFF_0000, 0xFF00, 0xFF, 0)
        }
        if compression == 3 {
            // The masks follow a 40-byte header, and are its fields in the longer ones (alpha from 56 bytes).
            guard pixelOffset >= 66 else { throw ImageRejection(.corrupt, "the BMP's channel masks are missing") }
            masks = (
                UInt32(uint(54, 4)), UInt32(uint(58, 4)), UInt32(uint(62, 4)),
                headerSize >= 56 ? UInt32(uint(66, 4)) : 0
            )
        }
        return BMPHeader(
            width: width, height: height, bitsPerPixel: bits, pixelOffset: pixelOffset, rowBytes: rowBytes,
            topDown: rawHeight < 0, palette: palette, red: Channel(mask: masks.0), green: Channel(mask: masks.1),
            blue: Channel(mask: masks.2), alpha: Channel(mask: masks.3))
    }
}
