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
        // libjpeg converts CMYK and YCCK only to CMYK; the conversion to RGB is done here.
        let cmyk = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        let format = cmyk ? TJPF_CMYK : TJPF_BGRX
        var pixels = [UInt8](repeating: 0xFF, count: Int(width) * Int(height) * 4)
        let result = bytes.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                tjDecompress2(
                    handle, source.baseAddress, UInt(bytes.count), target.baseAddress, width, 0, height,
                    Int32(format.rawValue), 0)
            }
        }
        guard result == 0 else { throw ImageRejection(.corrupt, "the JPEG does not decode") }
        if cmyk { cmykToBGRX(&pixels, inverted: hasAdobeMarker(bytes)) }
        return DecodedPixels(width: Int(width), height: Int(height), bytes: pixels, scale: scale)
    }

    /// Converts CMYK pixels in place to Cairo's BGRX without a colour profile: each channel is
    /// (1 − ink) × (1 − black). Files with an Adobe marker (Photoshop's and most others') store
    /// the inks inverted, 255 meaning no ink.
    static func cmykToBGRX(_ pixels: inout [UInt8], inverted: Bool) {
        for index in stride(from: 0, to: pixels.count, by: 4) {
            var (c, m, y, k) = (
                Int(pixels[index]), Int(pixels[index + 1]), Int(pixels[index + 2]), Int(pixels[index + 3])
            )
            if !inverted { (c, m, y, k) = (255 - c, 255 - m, 255 - y, 255 - k) }
            pixels[index] = UInt8((y * k + 127) / 255)
            pixels[index + 1] = UInt8((m * k + 127) / 255)
            pixels[index + 2] = UInt8((c * k + 127) / 255)
            pixels[index + 3] = 0xFF
        }
    }

    /// Whether the JPEG has an Adobe APP14 segment before its first scan.
    static func hasAdobeMarker(_ bytes: [UInt8]) -> Bool {
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            if marker == 0xDA || marker == 0xD9 { return false }
            if marker == 0xFF {
                index += 1
                continue
            }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2, index + 2 + length <= bytes.count else { return false }
            if marker == 0xEE, length >= 7, bytes[(index + 4)..<(index + 9)].elementsEqual("Adobe".utf8) {
                return true
            }
            index += 2 + length
        }
        return false
    }

    static func png(_ bytes: [UInt8]) throws(ImageRejection) -> DecodedPixels {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        let began = bytes.withUnsafeBufferPointer { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard began != 0 else { throw ImageRejection(.corrupt, "the PNG does not decode") }
        image.format = UInt32(PNG_FORMAT_BGRA)
        // A 16-bit PNG without gamma information is sRGB like any other (libpng would take it as linear).
        image.flags |= UInt32(PNG_IMAGE_FLAG_16BIT_sRGB)
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
        let (width, height, bits) = (header.width, header.height, header.bitsPerPixel)
        var pixels = [UInt8](repeating: 0xFF, count: width * height * 4)
        // Alpha only where the masks give it, and not when every pixel has 0 there (writers that
        // leave the byte unset): such a bitmap is opaque.
        var alpha: [UInt8]? = header.alpha.maximum > 0 ? [UInt8](repeating: 0, count: width * height) : nil
        bytes.withUnsafeBufferPointer { file in
            let palette = header.palette
            for y in 0..<height {
                let row = header.pixelOffset + (header.topDown ? y : height - 1 - y) * header.rowBytes
                var to = y * width * 4
                for x in 0..<width {
                    switch bits {
                    case 1, 4, 8:
                        let bit = x * bits
                        let byte = Int(file[row + bit / 8])
                        let index = byte >> (8 - bits - bit % 8) & (1 << bits - 1)
                        // An index past the palette is black, as in most readers.
                        let colour = index < palette.count ? palette[index] : 0
                        pixels[to] = UInt8(truncatingIfNeeded: colour)
                        pixels[to + 1] = UInt8(truncatingIfNeeded: colour >> 8)
                        pixels[to + 2] = UInt8(truncatingIfNeeded: colour >> 16)
                    case 24:
                        let from = row + x * 3
                        (pixels[to], pixels[to + 1], pixels[to + 2]) = (file[from], file[from + 1], file[from + 2])
                    default:
                        let from = row + x * bits / 8
                        var pixel = UInt32(file[from]) | UInt32(file[from + 1]) << 8
                        if bits == 32 { pixel |= UInt32(file[from + 2]) << 16 | UInt32(file[from + 3]) << 24 }
                        pixels[to] = header.blue.value(pixel)
                        pixels[to + 1] = header.green.value(pixel)
                        pixels[to + 2] = header.red.value(pixel)
                        alpha?[y * width + x] = header.alpha.value(pixel)
                    }
                    to += 4
                }
            }
        }
        if let alpha, alpha.contains(where: { $0 != 0 }) {
            // Transparent parts go on white paper, as for PNG.
            for (pixel, opacity) in alpha.enumerated() where opacity != 0xFF {
                let a = Int(opacity)
                for channel in 0..<3 {
                    let index = pixel * 4 + channel
                    pixels[index] = UInt8((Int(pixels[index]) * a + 255 * (255 - a)) / 255)
                }
            }
        }
        return DecodedPixels(width: width, height: height, bytes: pixels)
    }

    /// Runs `bytes` through the decoder the renderer uses, at the smallest size it decodes to
    /// (a JPEG at an eighth), and throws what rendering would throw: proof, before a card is
    /// paid for, that a stored image can be printed.
    public static func probe(_ bytes: [UInt8], format: ImageFormat) throws(ImageRejection) {
        _ = try decode(bytes, format: format, minimumScale: 0)
    }
}
