/// The header of a Windows bitmap: its size, bit depth and where its pixels are, checked against
/// the length of the file so that a truncated bitmap is caught without decoding it.
struct BMPHeader {
    let width: Int
    let height: Int
    let bitsPerPixel: Int

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
        if headerSize == 12 {
            width = uint(18, 2)
            rawHeight = uint(20, 2)
            bits = uint(24, 2)
        } else {
            width = Int(Int32(truncatingIfNeeded: UInt32(uint(18, 4))))
            rawHeight = Int(Int32(truncatingIfNeeded: UInt32(uint(22, 4))))
            bits = uint(28, 2)
            compression = uint(30, 4)
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
        let rowBytes = (width * bits + 31) / 32 * 4
        guard pixelOffset >= 14 + headerSize, bytes.count >= pixelOffset + rowBytes * height else {
            throw ImageRejection(
                .truncated,
                "the BMP file has \(bytes.count) bytes but its \(width)×\(height) pixels need \(pixelOffset + rowBytes * height)"
            )
        }
        return BMPHeader(width: width, height: height, bitsPerPixel: bits)
    }
}
