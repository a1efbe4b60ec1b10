import CCairoPango
import CImageCodecs
import Foundation

extension EditedFront {
    /// Paints the front cover-fitted over a `width` × `height` sheet (points) of `cairo`. Given
    /// `jpeg` (the painted pixels encoded by ``jpeg(quality:)``), a PDF embeds those bytes instead
    /// of the raw pixels.
    func draw(on cairo: OpaquePointer, width: Double, height: Double, jpeg: [UInt8]?) {
        let scale = max(width / frame.width, height / frame.height)
        cairo_save(cairo)
        cairo_rectangle(cairo, 0, 0, width, height)
        cairo_clip(cairo)
        cairo_translate(cairo, width / 2, height / 2)
        cairo_scale(cairo, scale, scale)
        cairo_translate(cairo, -(frame.x + frame.width / 2), -(frame.y + frame.height / 2))
        cairo_save(cairo)
        var matrix = geometry.rawToOriented
        cairo_transform(cairo, &matrix)
        let bounds = paintedBounds
        let rowBytes = pixels.width * 4
        pixels.bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            // Cairo only reads a source surface; the pointer is mutable in its signature alone.
            let start = UnsafeMutablePointer(mutating: base) + bounds.y0 * rowBytes + bounds.x0 * 4
            guard
                let surface = cairo_image_surface_create_for_data(
                    start, CAIRO_FORMAT_RGB24, Int32(bounds.x1 - bounds.x0), Int32(bounds.y1 - bounds.y0),
                    Int32(rowBytes))
            else { return }
            defer { cairo_surface_destroy(surface) }
            if let jpeg, let copy = malloc(jpeg.count) {
                jpeg.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: jpeg.count) }
                cairo_surface_set_mime_data(
                    surface, "image/jpeg", copy.assumingMemoryBound(to: UInt8.self), UInt(jpeg.count),
                    { free($0) }, copy)
            }
            cairo_set_source_surface(cairo, surface, Double(bounds.x0), Double(bounds.y0))
            cairo_pattern_set_filter(cairo_get_source(cairo), CAIRO_FILTER_GOOD)
            // PAD keeps the image's edge pixels at the sheet's edge; a PDF would re-encode a padded
            // image instead of embedding the JPEG, and its edge lies in the bleed anyway.
            if jpeg == nil { cairo_pattern_set_extend(cairo_get_source(cairo), CAIRO_EXTEND_PAD) }
            cairo_paint(cairo)
        }
        cairo_restore(cairo)
        for overlay in overlays { overlay.draw(on: cairo) }
        cairo_restore(cairo)
    }

    /// The painted pixels as a baseline JPEG (4:2:0), for embedding in a PDF; nil if encoding fails.
    func jpeg(quality: Int32 = 92) -> [UInt8]? {
        let bounds = paintedBounds
        let rowBytes = pixels.width * 4
        guard let handle = tjInitCompress() else { return nil }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = pixels.bytes.withUnsafeBufferPointer { buffer in
            tjCompress2(
                handle, buffer.baseAddress! + bounds.y0 * rowBytes + bounds.x0 * 4, Int32(bounds.x1 - bounds.x0),
                Int32(rowBytes), Int32(bounds.y1 - bounds.y0), Int32(TJPF_BGRX.rawValue), &output, &size,
                Int32(TJSAMP_420.rawValue), quality, 0)
        }
        defer { tjFree(output) }
        guard result == 0, let output else { return nil }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }
}
