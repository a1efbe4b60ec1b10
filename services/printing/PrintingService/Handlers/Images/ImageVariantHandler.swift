import CCairoPango
import Contract
import Foundation
import PrintingContract

/// Thumbnails and screen-sized copies of images (`image_content`): made once on the render pool
/// (decoded at the smallest JPEG scale that still covers the width, drawn with the EXIF
/// orientation, encoded as JPEG) and kept on disk next to the originals
/// (`DATA_DIR/variants/<sha256 prefix>/<sha256>-w<width>-v<version>.jpg`), so a repeat is one
/// file read; a client's current copy (`If-None-Match`) costs no read at all.
public struct ImageVariantHandler: Sendable {
    let images: ImageLibrary
    /// `DATA_DIR/variants`.
    public let root: URL

    /// Variants of `images` kept under `root` (created when missing).
    public init(images: ImageLibrary, root: URL) throws {
        self.images = images
        self.root = root
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// Answers `image_content` for `actor`.
    public func content(_ request: Printing.ImageContent.Request, actor: Actor) async throws
        -> Printing.ImageContent.Reply
    {
        let image = try await images.info(request.id, actor: actor)
        let variant = try ImageVariant(
            width: request.width, imageWidth: image.width, imageHeight: image.height, sha256: image.sha256)
        if variant.isMatched(by: request.ifNoneMatch) {
            return .init(
                etag: variant.entityTag, notModified: true, mediaType: "image/jpeg", width: variant.width,
                height: variant.height, data: "")
        }
        let bytes = try await self.bytes(of: variant, image: image)
        return .init(
            etag: variant.entityTag, notModified: false, mediaType: "image/jpeg", width: variant.width,
            height: variant.height, data: Data(bytes).base64EncodedString())
    }

    /// Where `variant` is kept.
    func url(_ variant: ImageVariant) -> URL {
        root.appendingPathComponent(String(variant.sha256.prefix(2)), isDirectory: true)
            .appendingPathComponent(variant.fileName)
    }

    /// The JPEG of `variant`: read when kept, otherwise made and kept (through a temporary name
    /// and a rename, so a reader never sees half a file and two replicas making it at once agree).
    func bytes(of variant: ImageVariant, image: Printing.ImageInfo) async throws -> [UInt8] {
        let target = url(variant)
        if let kept = try? Data(contentsOf: target) { return [UInt8](kept) }
        let scale = variant.decodeScale
        let pixels = try await images.decode(image) { _ in scale }
        let orientation = image.orientation
        let jpeg = try await images.pool.run {
            Self.render(pixels, orientation: orientation, width: variant.width, height: variant.height)
        }
        guard !jpeg.isEmpty else { throw ServiceError(.internal, "the variant of image \(image.id) did not encode") }
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".\(UUID().uuidString).part")
        try Data(jpeg).write(to: temporary)
        if rename(temporary.path, target.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
        }
        return jpeg
    }

    /// `variant` of an original (`bytes` in `format`, shown with EXIF `orientation`) as JPEG: what
    /// the first request of a variant costs, on the calling thread (the benchmark's measure).
    public static func make(_ bytes: [UInt8], format: ImageFormat, orientation: Int, variant: ImageVariant)
        throws -> [UInt8]
    {
        let pixels = try PixelDecoder.decode(bytes, format: format, minimumScale: variant.decodeScale)
        return render(pixels, orientation: orientation, width: variant.width, height: variant.height)
    }

    /// `pixels` (raw, shown with EXIF `orientation`) scaled to `width` × `height` as displayed, as JPEG.
    static func render(_ pixels: DecodedPixels, orientation: Int, width: Int, height: Int) -> [UInt8] {
        let geometry = FrontGeometry(rawWidth: pixels.width, rawHeight: pixels.height, orientation: orientation)
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)) else {
            return []
        }
        defer { cairo_surface_destroy(surface) }
        guard let cairo = cairo_create(surface) else { return [] }
        let oriented = geometry.oriented
        cairo_scale(cairo, Double(width) / oriented.width, Double(height) / oriented.height)
        var matrix = geometry.rawToOriented
        cairo_transform(cairo, &matrix)
        var bytes = pixels.bytes
        bytes.withUnsafeMutableBufferPointer { buffer in
            guard
                let source = cairo_image_surface_create_for_data(
                    buffer.baseAddress, CAIRO_FORMAT_RGB24, Int32(pixels.width), Int32(pixels.height),
                    Int32(pixels.width * 4))
            else { return }
            defer { cairo_surface_destroy(source) }
            cairo_set_source_surface(cairo, source, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(cairo), CAIRO_FILTER_GOOD)
            cairo_pattern_set_extend(cairo_get_source(cairo), CAIRO_EXTEND_PAD)
            cairo_paint(cairo)
        }
        cairo_destroy(cairo)
        cairo_surface_flush(surface)
        return PostcardRenderer.encodeJPEG(
            surface, width: Int32(width), height: Int32(height), quality: ImageVariant.quality)
    }
}
