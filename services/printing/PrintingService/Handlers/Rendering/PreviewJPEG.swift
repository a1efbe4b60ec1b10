import CCairoPango
import CImageCodecs
import PrintingContract

/// The JPEG of a preview, kept within a byte budget for the phone's network: TurboJPEG
/// (`tjCompress2`, 4:2:0, progressive) at the highest quality of a ladder whose file fits.
///
/// A photo front at 85 is usually over budget and a text back well under, so one encode settles
/// most backs and a few more (a binary search of the ladder) most fronts.
public enum PreviewJPEG {
    /// Bytes per megapixel a preview may take: about 58 KB for a 1080 × 766 A6 front.
    public static let bytesPerMegapixel = 72_000
    /// The budget of any preview, however small (the headers and tables alone take about 600).
    public static let minimumBudget = 8_000
    /// Qualities tried, lowest first; below 40 a photo shows its 8 × 8 blocks.
    public static let qualities = Array(stride(from: 40, through: 85, by: 5))

    /// The most bytes a `width × height` preview may take.
    public static func budget(width: Int, height: Int) -> Int {
        max(minimumBudget, width * height * bytesPerMegapixel / 1_000_000)
    }

    /// The encoded file and the quality it was made at.
    public struct Encoded: Sendable {
        public var bytes: [UInt8]
        public var quality: Int
    }

    /// Encodes pixels (`format` a TurboJPEG pixel format, rows `pitch` bytes apart) at the
    /// highest ladder quality that fits `budget`, or the lowest when none does; nil when
    /// TurboJPEG fails.
    public static func encode(
        _ pixels: UnsafePointer<UInt8>, width: Int, height: Int, pitch: Int, format: TJPF, budget: Int
    ) -> Encoded? {
        guard let handle = tjInitCompress() else { return nil }
        defer { tjDestroy(handle) }
        func compress(_ quality: Int) -> [UInt8]? {
            var output: UnsafeMutablePointer<UInt8>?
            var size: UInt = 0
            let result = tjCompress2(
                handle, pixels, Int32(width), Int32(pitch), Int32(height), Int32(format.rawValue), &output, &size,
                Int32(TJSAMP_420.rawValue), Int32(quality), TJFLAG_PROGRESSIVE)
            defer { tjFree(output) }
            guard result == 0, let output else { return nil }
            return Array(UnsafeBufferPointer(start: output, count: Int(size)))
        }
        let ladder = qualities
        guard let best = compress(ladder[ladder.count - 1]) else { return nil }
        if best.count <= budget { return Encoded(bytes: best, quality: ladder[ladder.count - 1]) }
        // The file shrinks as the quality drops: find the highest rung that fits.
        var fitting: Encoded?
        var (low, high) = (0, ladder.count - 2)
        while low <= high {
            let middle = (low + high) / 2
            guard let bytes = compress(ladder[middle]) else { return nil }
            if bytes.count <= budget {
                fitting = Encoded(bytes: bytes, quality: ladder[middle])
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        if let fitting { return fitting }
        return compress(ladder[0]).map { Encoded(bytes: $0, quality: ladder[0]) }
    }

    /// A Cairo RGB24 image surface (BGRX in memory on the little-endian machines served) as a
    /// budgeted JPEG; empty when it cannot be encoded.
    static func encode(surface: OpaquePointer, width: Int32, height: Int32) -> [UInt8] {
        guard let data = cairo_image_surface_get_data(surface) else { return [] }
        let encoded = encode(
            data, width: Int(width), height: Int(height), pitch: Int(cairo_image_surface_get_stride(surface)),
            format: TJPF_BGRX, budget: budget(width: Int(width), height: Int(height)))
        return encoded?.bytes ?? []
    }
}

extension PostcardRenderer {
    /// A raster of one side of the trimmed card `width` pixels wide (the height keeping the
    /// card's aspect), as a budgeted JPEG (``PreviewJPEG``) or a PNG.
    public static func preview(_ content: PostcardContent, side: Side, width: Int, format: PreviewFormat) -> [UInt8] {
        preview(content, side: side, dpi: dpi(width: width, size: content.size)) { surface, width, height in
            switch format {
            case .jpeg: PreviewJPEG.encode(surface: surface, width: width, height: height)
            case .png: encodePNG(surface, width: width, height: height)
            }
        }
    }

    /// The resolution at which the trimmed card of `size` is `width` pixels wide.
    public static func dpi(width: Int, size: CardSize) -> Double {
        Double(width) * 72 / size.trim.width
    }
}
