import CCairoPango
import CImageCodecs
import Foundation
import PrintingContract

/// Renders postcards with Cairo and Pango: the two-page print PDF and raster previews.
public enum PostcardRenderer {
    /// Which side of the card.
    public enum Side: String, Sendable, CaseIterable {
        case front
        case back
    }

    /// The print-ready PDF: page 1 the front, page 2 the back; MediaBox = card + 3 mm bleed on each
    /// side, TrimBox = the card; text stays text (fonts embedded).
    public static func pdf(_ content: PostcardContent) -> [UInt8] {
        pdf(cards: [content])
    }

    /// One print PDF of several cards of the same size: front and back of each, in order
    /// (2 pages per card), with the boxes of ``pdf(_:)`` on every page. Empty for no cards.
    public static func pdf(cards: [PostcardContent]) -> [UInt8] {
        guard let first = cards.first else { return [] }
        let media = first.size.media
        let sink = ByteSink()
        let unmanaged = Unmanaged.passRetained(sink)
        defer { unmanaged.release() }
        let surface = cairo_pdf_surface_create_for_stream(
            { closure, data, length in
                guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
                Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue().bytes.append(
                    contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                return CAIRO_STATUS_SUCCESS
            }, unmanaged.toOpaque(), media.width, media.height)
        let cairo = cairo_create(surface)!
        for content in cards {
            let canvas = CairoCanvas(cairo: cairo, content: content)
            canvas.drawFront()
            cairo_show_page(cairo)
            canvas.drawBack()
            cairo_show_page(cairo)
        }
        cairo_destroy(cairo)
        cairo_surface_finish(surface)
        cairo_surface_destroy(surface)
        let bleed = CardSize.bleed
        let trim = first.size.trim
        return PDFBoxes.addTrimBox(to: sink.bytes, trim: (bleed, bleed, bleed + trim.width, bleed + trim.height))
    }

    /// A raster of one side of the trimmed card at `dpi`, as PNG or (when `jpeg`) JPEG bytes.
    public static func preview(_ content: PostcardContent, side: Side, dpi: Double = 100, jpeg: Bool = false)
        -> [UInt8]
    {
        preview(content, side: side, dpi: dpi) { surface, width, height in
            jpeg ? encodeJPEG(surface, width: width, height: height) : encodePNG(surface, width: width, height: height)
        }
    }

    /// One side of the trimmed card drawn at `dpi` on an RGB24 surface, written out by `encode`.
    static func preview(
        _ content: PostcardContent, side: Side, dpi: Double,
        encode: (_ surface: OpaquePointer, _ width: Int32, _ height: Int32) -> [UInt8]
    ) -> [UInt8] {
        let trim = content.size.trim
        let scale = dpi / 72
        let width = Int32((trim.width * scale).rounded())
        let height = Int32((trim.height * scale).rounded())
        let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height)!
        defer { cairo_surface_destroy(surface) }
        let cairo = cairo_create(surface)!
        cairo_scale(cairo, scale, scale)
        cairo_translate(cairo, -CardSize.bleed, -CardSize.bleed)
        let canvas = CairoCanvas(cairo: cairo, content: content)
        switch side {
        case .front: canvas.drawFront()
        case .back: canvas.drawBack()
        }
        cairo_destroy(cairo)
        cairo_surface_flush(surface)
        return encode(surface, width, height)
    }

    /// libpng's simplified writer with `PNG_IMAGE_FLAG_FAST` (no row filters, zlib level 3):
    /// about ten times faster than Cairo's own PNG writer (adaptive filters, level 6) on a photo,
    /// for a file about a quarter larger.
    static func encodePNG(_ surface: OpaquePointer, width: Int32, height: Int32) -> [UInt8] {
        guard let data = cairo_image_surface_get_data(surface) else { return [] }
        let stride = Int(cairo_image_surface_get_stride(surface))
        let (columns, rows) = (Int(width), Int(height))
        var rgb = [UInt8](repeating: 0, count: columns * rows * 3)
        for y in 0..<rows {
            let row = data + y * stride
            for x in 0..<columns {
                let target = (y * columns + x) * 3
                (rgb[target], rgb[target + 1], rgb[target + 2]) = (row[x * 4 + 2], row[x * 4 + 1], row[x * 4])
            }
        }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(columns)
        image.height = UInt32(rows)
        image.format = UInt32(PNG_FORMAT_RGB)
        image.flags = UInt32(PNG_IMAGE_FLAG_FAST)
        defer { png_image_free(&image) }
        // Room for the raw rows plus headers, so one pass suffices; libpng says when it needs more.
        var size = rgb.count + rgb.count / 8 + 4_096
        for _ in 0..<2 {
            var bytes = [UInt8](repeating: 0, count: size)
            let written = bytes.withUnsafeMutableBufferPointer { target in
                rgb.withUnsafeBufferPointer {
                    png_image_write_to_memory(&image, target.baseAddress, &size, 0, $0.baseAddress, 0, nil)
                }
            }
            if written != 0 { return Array(bytes.prefix(size)) }
            guard size > bytes.count else { return [] }
        }
        return []
    }

    static func encodeJPEG(_ surface: OpaquePointer, width: Int32, height: Int32, quality: Int32 = 88) -> [UInt8] {
        guard let handle = tjInitCompress(), let data = cairo_image_surface_get_data(surface) else { return [] }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = tjCompress2(
            handle, data, width, cairo_image_surface_get_stride(surface), height, Int32(TJPF_BGRX.rawValue), &output,
            &size, Int32(TJSAMP_420.rawValue), quality, 0)
        defer { tjFree(output) }
        guard result == 0, let output else { return [] }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    /// Collects what Cairo writes; used only on the rendering thread, inside one call.
    private final class ByteSink {
        var bytes: [UInt8] = []
    }
}
