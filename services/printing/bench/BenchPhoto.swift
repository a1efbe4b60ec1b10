import CImageCodecs

/// The benchmark's photo: a deterministic 3264 × 2448 (8-megapixel) baseline JPEG, quality 90,
/// 4:2:0, of diagonal colour gradients with xorshift noise (so that it compresses like a photo,
/// about 3 MB, rather than like a flat test card).
enum BenchPhoto {
    static let width = 3264
    static let height = 2448

    static func jpeg() -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        var state: UInt32 = 0x9E37_79B9
        for y in 0..<height {
            for x in 0..<width {
                state ^= state << 13
                state ^= state >> 17
                state ^= state << 5
                let noise = Int(state & 31) - 16
                let index = (y * width + x) * 3
                rgb[index] = clamp(x * 255 / width + noise)
                rgb[index + 1] = clamp(y * 255 / height + noise)
                rgb[index + 2] = clamp((x + y) * 255 / (width + height) / 2 + 64 + noise)
            }
        }
        guard let handle = tjInitCompress() else { fatalError("TurboJPEG did not start") }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = rgb.withUnsafeBufferPointer {
            tjCompress2(
                handle, $0.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue), &output, &size,
                Int32(TJSAMP_420.rawValue), 90, 0)
        }
        defer { tjFree(output) }
        guard result == 0, let output else { fatalError("the benchmark photo did not encode") }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    private static func clamp(_ value: Int) -> UInt8 { UInt8(min(255, max(0, value))) }
}
