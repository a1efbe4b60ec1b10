import CCairoPango
import Foundation
import PrintingContract

/// The e-card picture for e-mail: the front and the back of the trimmed card side by side in
/// one JPEG, drawn by the same ``CairoCanvas`` sides as the print PDF and the previews.
public enum ECardImage {
    /// A rendered e-card.
    public struct Rendered: Sendable {
        public var jpeg: [UInt8]
        public var width: Int
        public var height: Int
    }

    /// Renders `content` (front left, back right) at `dpi` of the trimmed card.
    public static func render(_ content: PostcardContent, dpi: Double) -> Rendered {
        let trim = content.size.trim
        let scale = dpi / 72
        let side = (width: Int32((trim.width * scale).rounded()), height: Int32((trim.height * scale).rounded()))
        let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 2 * side.width, side.height)!
        defer { cairo_surface_destroy(surface) }
        let cairo = cairo_create(surface)!
        let canvas = CairoCanvas(cairo: cairo, content: content)
        for (index, draw) in [canvas.drawFront, canvas.drawBack].enumerated() {
            cairo_save(cairo)
            cairo_rectangle(cairo, Double(index) * Double(side.width), 0, Double(side.width), Double(side.height))
            cairo_clip(cairo)
            cairo_translate(cairo, Double(index) * Double(side.width), 0)
            cairo_scale(cairo, scale, scale)
            cairo_translate(cairo, -CardSize.bleed, -CardSize.bleed)
            draw()
            cairo_restore(cairo)
        }
        cairo_destroy(cairo)
        cairo_surface_flush(surface)
        let jpeg = PostcardRenderer.encodeJPEG(surface, width: 2 * side.width, height: side.height)
        return Rendered(jpeg: jpeg, width: Int(2 * side.width), height: Int(side.height))
    }
}
