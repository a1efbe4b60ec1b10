import CCairoPango
import Contract
import PrintingContract

/// A front image with its edit list applied: the pixel edits done in place on one buffer (the
/// decoded original, never copied again), crops kept as a rectangle instead of new buffers, and
/// the pen and text edits that no later pixel edit changes kept as vectors, so a PDF holds them
/// as paths and extractable text.
struct EditedFront: Sendable {
    /// The raw pixels after the pixel edits.
    private(set) var pixels: DecodedPixels
    let geometry: FrontGeometry
    /// What is left after the crops, in displayed pixels.
    private(set) var frame: EditRect
    /// Pen and text edits drawn over the pixels, in order.
    private(set) var overlays: [EditOverlay] = []

    /// Applies `edits` in order to `pixels` (shown with EXIF `orientation`).
    init(_ pixels: consuming DecodedPixels, orientation: Int, edits: [PostcardEdit]) {
        geometry = FrontGeometry(rawWidth: pixels.width, rawHeight: pixels.height, orientation: orientation)
        self.pixels = pixels
        frame = geometry.full
        let lastPixelEdit = edits.lastIndex { edit in
            switch edit {
            case .brightness, .contrast, .redeye, .filter: true
            case .crop, .pen, .text: false
            }
        }
        for (index, edit) in edits.enumerated() {
            switch edit {
            case .crop(let rect):
                frame = FrontGeometry.place(rect, in: frame)
            case .brightness, .contrast:
                if let table = ColorMatrix.table(edit) { withRegion { $0.map(table) } }
            case .filter(let filter):
                let matrix = ColorMatrix.filter(filter)
                withRegion { $0.transform(matrix) }
            case .redeye(let circles, let detect):
                let shorter = min(frame.width, frame.height)
                if detect {
                    // A pupil is at most a tenth of the shorter side across; cells of 1/150 of it.
                    let cell = max(1, Int(shorter / 150))
                    withRegion { region in
                        for eye in region.redSpots(cell: cell, maximumCells: max(2, Int(shorter / 10) / cell)) {
                            region.reduceRed(centerX: eye.x, centerY: eye.y, radius: eye.radius)
                        }
                    }
                }
                for circle in circles {
                    let center = geometry.raw(
                        x: frame.x + circle.x * frame.width, y: frame.y + circle.y * frame.height)
                    withRegion { $0.reduceRed(centerX: center.x, centerY: center.y, radius: circle.radius * shorter) }
                }
            case .pen, .text:
                let overlay = EditOverlay(frame: frame, edit: edit)
                if let lastPixelEdit, index < lastPixelEdit {
                    rasterize(overlay)
                } else {
                    overlays.append(overlay)
                }
            }
        }
    }

    /// Runs `body` on the raw pixels under the current frame.
    private mutating func withRegion(_ body: (PixelRegion) -> Void) {
        let bounds = geometry.rawBounds(frame)
        let stride = pixels.width * 4
        pixels.bytes.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            body(PixelRegion(base: base, stride: stride, x0: bounds.x0, y0: bounds.y0, x1: bounds.x1, y1: bounds.y1))
        }
    }

    /// Draws `overlay` into the pixels, so that later pixel edits apply to it too.
    private mutating func rasterize(_ overlay: EditOverlay) {
        let (width, height, geometry) = (pixels.width, pixels.height, geometry)
        pixels.bytes.withUnsafeMutableBufferPointer { buffer in
            guard
                let surface = cairo_image_surface_create_for_data(
                    buffer.baseAddress, CAIRO_FORMAT_RGB24, Int32(width), Int32(height), Int32(width * 4))
            else { return }
            defer { cairo_surface_destroy(surface) }
            guard let cairo = cairo_create(surface) else { return }
            var matrix = geometry.orientedToRaw
            cairo_transform(cairo, &matrix)
            cairo_rectangle(cairo, overlay.frame.x, overlay.frame.y, overlay.frame.width, overlay.frame.height)
            cairo_clip(cairo)
            overlay.draw(on: cairo)
            cairo_destroy(cairo)
            cairo_surface_flush(surface)
        }
    }

    /// The raw pixel bounds of the frame (what is painted).
    var paintedBounds: (x0: Int, y0: Int, x1: Int, y1: Int) { geometry.rawBounds(frame) }
}
