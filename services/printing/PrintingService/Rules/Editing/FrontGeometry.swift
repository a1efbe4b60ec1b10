import CCairoPango
import Contract
import PrintingContract

/// How a decoded image's raw pixels (as stored in the file) relate to the image as displayed
/// after its EXIF orientation; rectangles are in pixels.
struct FrontGeometry: Sendable {
    let rawWidth: Int
    let rawHeight: Int
    let orientation: Int

    /// Width and height as displayed.
    var oriented: (width: Double, height: Double) {
        (5...8).contains(orientation)
            ? (Double(rawHeight), Double(rawWidth)) : (Double(rawWidth), Double(rawHeight))
    }

    /// The whole displayed image.
    var full: EditRect { EditRect(x: 0, y: 0, width: oriented.width, height: oriented.height) }

    /// Maps raw pixel coordinates to displayed ones.
    var rawToOriented: cairo_matrix_t {
        var matrix = cairo_matrix_t()
        cairo_matrix_init_translate(&matrix, oriented.width / 2, oriented.height / 2)
        let (angle, flipX, flipY) = CairoCanvas.orientationTransform(orientation)
        cairo_matrix_rotate(&matrix, angle)
        cairo_matrix_scale(&matrix, flipX, flipY)
        cairo_matrix_translate(&matrix, -Double(rawWidth) / 2, -Double(rawHeight) / 2)
        return matrix
    }

    /// Maps displayed pixel coordinates to raw ones.
    var orientedToRaw: cairo_matrix_t {
        var matrix = rawToOriented
        cairo_matrix_invert(&matrix)
        return matrix
    }

    /// A displayed point in raw pixels.
    func raw(x: Double, y: Double) -> (x: Double, y: Double) {
        var matrix = orientedToRaw
        var (px, py) = (x, y)
        cairo_matrix_transform_point(&matrix, &px, &py)
        return (px, py)
    }

    /// The raw pixel bounds (half-open, inside the buffer, at least one pixel) of a displayed rectangle.
    func rawBounds(_ rect: EditRect) -> (x0: Int, y0: Int, x1: Int, y1: Int) {
        let a = raw(x: rect.x, y: rect.y)
        let b = raw(x: rect.x + rect.width, y: rect.y + rect.height)
        let x0 = min(rawWidth - 1, max(0, Int(min(a.x, b.x).rounded())))
        let y0 = min(rawHeight - 1, max(0, Int(min(a.y, b.y).rounded())))
        let x1 = max(x0 + 1, min(rawWidth, Int(max(a.x, b.x).rounded())))
        let y1 = max(y0 + 1, min(rawHeight, Int(max(a.y, b.y).rounded())))
        return (x0, y0, x1, y1)
    }

    /// `inner` (fractions of `frame`) in pixels; a crop keeps at least one pixel a side.
    static func place(_ inner: EditRect, in frame: EditRect) -> EditRect {
        EditRect(
            x: frame.x + inner.x * frame.width, y: frame.y + inner.y * frame.height,
            width: max(1, inner.width * frame.width), height: max(1, inner.height * frame.height))
    }

    /// The part of the displayed image a list keeps, as fractions (x, y, width, height).
    static func cropFraction(_ edits: [PostcardEdit]) -> EditRect {
        var frame = EditRect(x: 0, y: 0, width: 1, height: 1)
        for case .crop(let rect) in edits {
            frame = EditRect(
                x: frame.x + rect.x * frame.width, y: frame.y + rect.y * frame.height,
                width: rect.width * frame.width, height: rect.height * frame.height)
        }
        return frame
    }
}
