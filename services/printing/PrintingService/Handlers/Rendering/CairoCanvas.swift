import CCairoPango
import CommonContract
import Contract
import Foundation
import PrintingContract

/// Draws the two sides of a postcard on a Cairo context whose user space is in points with the
/// origin at the top-left of the sheet including the bleed.
struct CairoCanvas {
    let cairo: OpaquePointer
    let content: PostcardContent

    private var size: CardSize { content.size }
    private static let millimetre = CardSize.pointsPerMillimetre

    /// The front: the image with its edits, cover-fitted over the whole sheet (into the bleed), or
    /// plain paper.
    func drawFront() {
        let media = size.media
        cairo_set_source_rgb(cairo, 0.93, 0.95, 0.97)
        cairo_rectangle(cairo, 0, 0, media.width, media.height)
        cairo_fill(cairo)
        guard let front = content.editedFront else { return }
        let isPDF = cairo_surface_get_type(cairo_get_target(cairo)) == CAIRO_SURFACE_TYPE_PDF
        front.draw(
            on: cairo, width: media.width, height: media.height,
            jpeg: isPDF ? content.frontCache.jpeg(of: front) : nil)
    }

    /// EXIF orientation as a rotation (radians, clockwise on screen) after a mirror.
    static func orientationTransform(_ orientation: Int) -> (Double, Double, Double) {
        switch orientation {
        case 2: (0, -1, 1)
        case 3: (Double.pi, 1, 1)
        case 4: (0, 1, -1)
        case 5: (Double.pi / 2, 1, -1)
        case 6: (Double.pi / 2, 1, 1)
        case 7: (Double.pi / 2, -1, 1)
        case 8: (-Double.pi / 2, 1, 1)
        default: (0, 1, 1)
        }
    }

    /// Height of the strip along the bottom of the back kept free for the postal service's marks.
    static let clearZone = 15 * millimetre

    /// The back: greeting on the left, stamp top right, address on the right, the clear zone empty.
    func drawBack() {
        let media = size.media
        cairo_set_source_rgb(cairo, 1, 1, 1)
        cairo_rectangle(cairo, 0, 0, media.width, media.height)
        cairo_fill(cairo)
        let bleed = CardSize.bleed
        let (width, height) = size.trim
        let margin = 8 * Self.millimetre
        let factor = size.millimetres.width / 148
        cairo_save(cairo)
        cairo_translate(cairo, bleed, bleed)
        cairo_set_source_rgb(cairo, 0.6, 0.6, 0.6)
        cairo_set_line_width(cairo, 0.5)
        cairo_move_to(cairo, width / 2, margin)
        cairo_line_to(cairo, width / 2, height - Self.clearZone)
        cairo_stroke(cairo)
        var stampBottom = margin
        if let stamp = content.stamp {
            let stampWidth = 22 * Self.millimetre * factor
            let stampHeight = stampWidth * Double(stamp.height) / Double(stamp.width)
            draw(stamp, x: width - margin - stampWidth, y: margin, width: stampWidth, height: stampHeight)
            stampBottom = margin + stampHeight
        }
        cairo_set_source_rgb(cairo, 0.1, 0.1, 0.1)
        let greetingBox = (
            x: margin, y: margin, width: width / 2 - 2 * margin, height: height - margin - Self.clearZone
        )
        text(
            content.greeting, box: greetingBox, startSize: 16 * factor, minimumSize: 5)
        if let recipient = content.recipient {
            let x = width / 2 + 6 * Self.millimetre
            let top = max(stampBottom + 8 * Self.millimetre, height * 0.4)
            text(
                Self.addressLines(recipient).joined(separator: "\n"),
                box: (x: x, y: top, width: width - margin - x, height: height - Self.clearZone - top),
                startSize: 11 * factor, minimumSize: 5)
        }
        cairo_restore(cairo)
    }

    static func addressLines(_ recipient: PostalRecipient) -> [String] {
        let address = recipient.address
        let city = [address.postalCode, address.city].compactMap { $0 }.joined(separator: " ")
        return [recipient.name, address.line1, address.line2, city, address.region, address.country]
            .compactMap { $0 }.filter { !$0.isEmpty }
    }

    private func draw(_ image: DecodedPixels, x: Double, y: Double, width: Double, height: Double) {
        var pixels = image.bytes
        pixels.withUnsafeMutableBufferPointer { buffer in
            guard
                let surface = cairo_image_surface_create_for_data(
                    buffer.baseAddress, CAIRO_FORMAT_RGB24, Int32(image.width), Int32(image.height),
                    Int32(image.width * 4))
            else { return }
            defer { cairo_surface_destroy(surface) }
            cairo_save(cairo)
            cairo_translate(cairo, x, y)
            cairo_scale(cairo, width / Double(image.width), height / Double(image.height))
            cairo_set_source_surface(cairo, surface, 0, 0)
            cairo_paint(cairo)
            cairo_restore(cairo)
        }
    }

    /// `string` wrapped to the box's width, its size shrunk until it fits the box's height (and
    /// cut with an ellipsis at `minimumSize` if it still does not).
    private func text(
        _ string: String, box: (x: Double, y: Double, width: Double, height: Double), startSize: Double,
        minimumSize: Double
    ) {
        guard !string.isEmpty, box.width > 0, box.height > 0, let layout = pango_cairo_create_layout(cairo) else {
            return
        }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let font = pango_font_description_from_string("DejaVu Sans")
        defer { pango_font_description_free(font) }
        pango_layout_set_width(layout, Int32(box.width * Double(BACKPLANE_PANGO_SCALE)))
        pango_layout_set_wrap(layout, Int32(BACKPLANE_PANGO_WRAP_WORD_CHAR))
        pango_layout_set_text(layout, string, -1)
        var fontSize = startSize
        while true {
            pango_font_description_set_absolute_size(font, fontSize * Double(BACKPLANE_PANGO_SCALE))
            pango_layout_set_font_description(layout, font)
            var logical = PangoRectangle()
            pango_layout_get_extents(layout, nil, &logical)
            if Double(logical.height) / Double(BACKPLANE_PANGO_SCALE) <= box.height { break }
            if fontSize <= minimumSize {
                pango_layout_set_height(layout, Int32(box.height * Double(BACKPLANE_PANGO_SCALE)))
                pango_layout_set_ellipsize(layout, Int32(BACKPLANE_PANGO_ELLIPSIZE_END))
                break
            }
            fontSize = max(minimumSize, fontSize * 0.9)
        }
        cairo_move_to(cairo, box.x, box.y)
        pango_cairo_show_layout(cairo, layout)
    }
}
