import CImageCodecs

/// Decodes JPEG (libjpeg-turbo's TurboJPEG) and PNG (libpng's simplified API) far enough to
/// prove the data is whole: sizes are checked against the limits before any pixel is decoded.
enum CodecChecks {
    /// Width and height of a JPEG whose entropy-coded data decodes to the end.
    static func jpeg(_ bytes: [UInt8], limits: ImageLimits) throws(ImageRejection) -> (width: Int, height: Int) {
        guard let handle = tjInitDecompress() else { throw ImageRejection(.corrupt, "the JPEG decoder did not start") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let header = bytes.withUnsafeBufferPointer {
            tjDecompressHeader3(
                handle, $0.baseAddress, UInt(bytes.count), &width, &height, &subsampling, &colorspace)
        }
        guard header == 0 else {
            throw ImageRejection(.corrupt, "the JPEG header cannot be read: \(message(handle))")
        }
        try checkPixels(Int(width), Int(height), limits: limits, format: "JPEG")
        // An eighth of the size is enough to run through all of the data. libjpeg turns CMYK and
        // YCCK into nothing but CMYK, so those are decoded to that.
        let scaledWidth = (Int(width) + 7) / 8
        let scaledHeight = (Int(height) + 7) / 8
        let cmyk = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        var pixels = [UInt8](repeating: 0, count: scaledWidth * scaledHeight * (cmyk ? 4 : 1))
        let decoded = bytes.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                tjDecompress2(
                    handle, source.baseAddress, UInt(bytes.count), target.baseAddress, Int32(scaledWidth), 0,
                    Int32(scaledHeight), Int32((cmyk ? TJPF_CMYK : TJPF_GRAY).rawValue), 0)
            }
        }
        if decoded != 0 {
            let text = message(handle)
            if tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) || text.contains("Premature end") {
                throw ImageRejection(.truncated, "the JPEG data ends early (\(text))")
            }
            throw ImageRejection(.corrupt, "the JPEG data cannot be decoded (\(text))")
        }
        return (Int(width), Int(height))
    }

    private static func message(_ handle: tjhandle) -> String {
        tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown error"
    }

    /// Width and height of a PNG whose data decodes to the end.
    static func png(_ bytes: [UInt8], limits: ImageLimits) throws(ImageRejection) -> (width: Int, height: Int) {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        let began = bytes.withUnsafeBufferPointer {
            png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count)
        }
        guard began != 0 else { throw ImageRejection(.corrupt, "the PNG header cannot be read: \(message(image))") }
        let (width, height) = (Int(image.width), Int(image.height))
        try checkPixels(width, height, limits: limits, format: "PNG")
        image.format = UInt32(PNG_FORMAT_GRAY)
        image.flags |= UInt32(PNG_IMAGE_FLAG_16BIT_sRGB)
        var pixels = [UInt8](repeating: 0, count: width * height)
        let finished = pixels.withUnsafeMutableBufferPointer {
            png_image_finish_read(&image, nil, $0.baseAddress, 0, nil)
        }
        guard finished != 0 else {
            let text = message(image)
            let truncated = text.contains("Read Error") || text.contains("end") || text.contains("EOF")
            throw ImageRejection(
                truncated ? .truncated : .corrupt,
                truncated ? "the PNG data ends early (\(text))" : "the PNG data cannot be decoded (\(text))")
        }
        return (width, height)
    }

    private static func message(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// Refuses sizes over the limit before a decoder allocates for them.
    static func checkPixels(_ width: Int, _ height: Int, limits: ImageLimits, format: String) throws(ImageRejection) {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0 else { throw ImageRejection(.corrupt, "the \(format) claims no pixels") }
        guard !overflow, pixels <= limits.maxPixels else {
            throw ImageRejection(
                .tooManyPixels,
                "the \(format) claims \(width)×\(height) pixels; the limit is \(limits.maxPixels / 1_000_000) megapixels"
            )
        }
    }
}
