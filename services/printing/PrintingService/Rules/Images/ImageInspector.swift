/// What an accepted upload is: its format, pixel size as displayed (EXIF orientation applied),
/// orientation and GPS position.
public struct InspectedImage: Sendable, Hashable {
    public var format: ImageFormat
    /// Width and height after the EXIF orientation is applied.
    public var width: Int
    public var height: Int
    public var exif: ExifInfo
}

/// The upload guards, in order: size in bytes, declared type, actual type from the first bytes,
/// pixel count from the header (before decoding: a bomb is refused here), then a decode that
/// proves the data is whole. Pure: bytes in, verdict out.
public enum ImageInspector {
    /// Inspects `bytes` sent as `contentType`.
    public static func inspect(_ bytes: [UInt8], contentType: String, limits: ImageLimits) throws(ImageRejection)
        -> InspectedImage
    {
        guard bytes.count <= limits.maxBytes else {
            throw ImageRejection(.tooLarge, "the image has \(bytes.count) bytes; the limit is \(limits.maxBytes)")
        }
        guard let declared = ImageFormat(contentType: contentType) else {
            throw ImageRejection(
                .unsupportedType, "Content-Type \(contentType) is not accepted; send image/jpeg, image/png or image/bmp"
            )
        }
        guard !bytes.isEmpty else { throw ImageRejection(.truncated, "the body is empty") }
        guard let actual = ImageFormat.sniff(bytes) else {
            throw ImageRejection(
                .wrongType, "the body is not a \(declared.label) image (nor any image format accepted)")
        }
        guard actual == declared else {
            throw ImageRejection(.wrongType, "the body is a \(actual.label) image but was sent as \(declared.rawValue)")
        }
        var exif = ExifInfo()
        let size: (width: Int, height: Int)
        switch actual {
        case .jpeg:
            size = try CodecChecks.jpeg(bytes, limits: limits)
            exif = ExifInfo.read(jpeg: bytes)
        case .png:
            if let header = StampImage.pngSize(bytes) {
                try CodecChecks.checkPixels(header.0, header.1, limits: limits, format: "PNG")
            }
            size = try CodecChecks.png(bytes, limits: limits)
        case .bmp:
            let header = try BMPHeader.read(bytes, limits: limits)
            size = (header.width, header.height)
        }
        return InspectedImage(
            format: actual, width: exif.swapsAxes ? size.height : size.width,
            height: exif.swapsAxes ? size.width : size.height, exif: exif)
    }
}

extension ImageFormat {
    /// `JPEG`, `PNG`, `BMP`.
    var label: String { fileExtension == "jpg" ? "JPEG" : fileExtension.uppercased() }
}
