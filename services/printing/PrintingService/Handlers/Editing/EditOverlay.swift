import CCairoPango
import Contract
import PrintingContract

/// A `pen` or `text` edit with the rectangle (displayed pixels) its fractions refer to: drawn as
/// vector paths and Pango text on any Cairo context whose user space is displayed pixels.
struct EditOverlay: Sendable {
    let frame: EditRect
    let edit: PostcardEdit

    func draw(on cairo: OpaquePointer) {
        let shorter = min(frame.width, frame.height)
        switch edit {
        case .pen(let strokes):
            cairo_set_line_cap(cairo, CAIRO_LINE_CAP_ROUND)
            cairo_set_line_join(cairo, CAIRO_LINE_JOIN_ROUND)
            for stroke in strokes {
                setColor(stroke.color, on: cairo)
                cairo_set_line_width(cairo, stroke.width * shorter)
                for (index, point) in stroke.points.enumerated() {
                    let (x, y) = position(point.x, point.y)
                    if index == 0 { cairo_move_to(cairo, x, y) }
                    cairo_line_to(cairo, x, y)
                }
                cairo_stroke(cairo)
            }
        case .text(let overlay):
            guard let layout = pango_cairo_create_layout(cairo) else { return }
            defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
            let font = pango_font_description_from_string("DejaVu Sans")
            defer { pango_font_description_free(font) }
            pango_font_description_set_absolute_size(
                font, overlay.size * frame.height * Double(BACKPLANE_PANGO_SCALE))
            pango_layout_set_font_description(layout, font)
            pango_layout_set_text(layout, overlay.text, -1)
            setColor(overlay.color, on: cairo)
            let (x, y) = position(overlay.x, overlay.y)
            cairo_move_to(cairo, x, y)
            pango_cairo_show_layout(cairo, layout)
        default:
            break
        }
    }

    private func position(_ x: Double, _ y: Double) -> (Double, Double) {
        (frame.x + x * frame.width, frame.y + y * frame.height)
    }

    private func setColor(_ color: EditColor, on cairo: OpaquePointer) {
        cairo_set_source_rgb(cairo, Double(color.red) / 255, Double(color.green) / 255, Double(color.blue) / 255)
    }
}
