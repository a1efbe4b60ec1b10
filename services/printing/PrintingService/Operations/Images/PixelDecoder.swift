import CImageCodecs

/// Pixels in Cairo's `RGB24` layout: 4 bytes per pixel, blue, green, red, unused (little-endian).
public struct DecodedPixels: Sendable {
    public let width: Int
    public let height: Int
    public var bytes: [UInt8]
    /// Decoded pixels per pixel of the original (below 1 when decoded at a reduced size).
    public var scale: Double = 1
}

/// Decodes an accepted original to pixels for rendering (the upload guards ran before).
public enum PixelDecoder {
    /// The pixels of `bytes` in `format`; a rejection when they do not decode.
    public static func decode(_ bytes: [UInt8], format: ImageFormat) throws(ImageRejection) -> DecodedPixels {
        try decode(bytes, format: format, minimumScale: 1)
    }

    /// The pixels of `bytes`, for a JPEG at the smallest of libjpeg-turbo's scales 1/8, 2/8, ... 8/8
    /// that is at least `minimumScale` (the IDCT does the shrinking, so a preview of a large photo
    /// decodes a fraction of its pixels); PNG and BMP at full size.
    public static func decode(_ bytes: [UInt8], format: ImageFormat, minimumScale: Double) throws(ImageRejection)
        -> DecodedPixels
    {
        switch format {
        case .jpeg:
            let eighths = (1...8).first { Double($0) / 8 >= minimumScale } ?? 8
            return try jpeg(bytes, eighths: eighths)
        case .png: return try png(bytes)
        case .bmp: return try bmp(bytes)
        }
    }

    static func jpeg(_ bytes: [UInt8], eighths: Int = 8) throws(ImageRejection) -> DecodedPixels {
        guard let handle = tjInitDecompress() else { throw ImageRejection(.corrupt, "the JPEG decoder did not start") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let header = bytes.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt(bytes.count), &width, &height, &subsampling, &colorspace)
        }
        guard header == 0, width > 0, height > 0 else { throw ImageRejection(.corrupt, "the JPEG does not decode") }
        let scaledWidth = (Int(width) * eighths + 7) / 8
        let scaledHeight = (Int(height) * eighths + 7) / 8
        let scale = Double(scaledWidth) / Double(width)
        (width, height) = (Int32(scaledWidth), Int32(scaledHeight))
        var pixels = [UInt8](repeating: 0xFF, count: Int(width) * Int(height) * 4)
        let result = bytes.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                tjDecompress2(
                    handle, source.baseAddress, UInt(bytes.count), target.baseAddress, width, 0, height,
                    Int32(TJPF_BGRX.rawValue), 0)
            }
        }
        guard result == 0 else { throw ImageRejection(.corrupt, "the JPEG does not decode") }
        return DecodedPixels(width: Int(width), height: Int(height), bytes: pixels, scale: scale)
    }

    static func png(_ bytes: [UInt8]) throws(ImageRejection) -> DecodedPixels {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        let began = bytes.withUnsafeBufferPointer { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard began != 0 else { throw ImageRejection(.corrupt, "the PNG does not decode") }
        image.format = UInt32(PNG_FORMAT_BGRA)
        let (width, height) = (Int(image.width), Int(image.height))
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let finished = pixels.withUnsafeMutableBufferPointer {
            png_image_finish_read(&image, nil, $0.baseAddress, 0, nil)
        }
        guard finished != 0 else { throw ImageRejection(.corrupt, "the PNG does not decode") }
        // Transparent parts go on white paper.
        for index in stride(from: 0, to: pixels.count, by: 4) {
            let alpha = Int(pixels[index + 3])
            for channel in 0..<3 {
                pixels[index + channel] = UInt8((Int(pixels[index + channel]) * alpha + 255 * (255 - alpha)) / 255)
            }
            pixels[index + 3] = 0xFF
        }
        return DecodedPixels(width: width, height: height, bytes: pixels)
    }

    static func bmp(_ bytes: [UInt8]) throws(ImageRejection) -> DecodedPixels {
        let header = try BMPHeader.read(bytes, limits: ImageLimits(maxBytes: Int.max, maxPixels: Int.max))
        guard header.bitsPerPixel == 24 || header.bitsPerPixel == 32 else {
            throw ImageRejection(.unsupportedType, "only 24- and 32-bit BMP files can be printed")
        }
        let offset = (0..<4).reversed().reduce(0) { $0 << 8 | Int(bytes[10 + $1]) }
        let rawHeight = Int32(
            truncatingIfNeeded: UInt32((0..<4).reversed().reduce(0) { $0 << 8 | Int(bytes[22 + $1]) }))
        let topDown = rawHeight < 0
        let step = header.bitsPerPixel / 8
        let row = (header.width * header.bitsPerPixel + 31) / 32 * 4
        var pixels = [UInt8](repeating: 0xFF, count: header.width * header.height * 4)
        for y in 0..<header.height {
            let source = offset + (topDown ? y : header.height - 1 - y) * row
            for x in 0..<header.width {
                let from = source + x * step
                let to = (y * header.width + x) * 4
                pixels[to] = bytes[from]
                pixels[to + 1] = bytes[from + 1]
                pixels[to + 2] = bytes[from + 2]
            }
        }
        return DecodedPixels(width: header.width, height: header.height, bytes: pixels)
    }
}
