import Contract

/// One step of a postcard front's non-destructive edit list (PostcardBuddy 4.2.2.5). The list is
/// applied in order to the original upload each time the front is drawn; the upload never changes.
///
/// Coordinates are fractions from 0 to 1 of the image **as displayed** (after its EXIF
/// orientation) **and after every earlier crop in the list**: `(0, 0)` is the top-left corner,
/// `(1, 1)` the bottom-right. Lengths (a pen's width, a red-eye radius) are fractions of the
/// shorter side of that same image; a text's `size` is a fraction of its height. So a list means
/// the same thing at any decoding resolution.
public enum PostcardEdit: Sendable, Hashable {
    /// Adds `amount` × 255 to every channel; -1 to 1.
    case brightness(amount: Double)
    /// Scales every channel's distance from mid-grey by 1 + `amount` (below 0) or 1 + 3 × `amount`
    /// (above 0); -1 makes the image flat grey.
    case contrast(amount: Double)
    /// Keeps only this rectangle; later coordinates are fractions of it.
    case crop(EditRect)
    /// Lowers red where red dominates inside each circle; with `detect`, also inside every small,
    /// round, strongly red spot found in the image (a pupil lit by a flash).
    case redeye(regions: [EditCircle], detect: Bool = false)
    /// A colour filter over the whole image.
    case filter(PostcardFilter)
    /// Freehand strokes drawn over the image.
    case pen(strokes: [PenStroke])
    /// A line of text drawn over the image.
    case text(TextOverlay)

    /// The `type` of the edit in JSON.
    public var type: String {
        switch self {
        case .brightness: "brightness"
        case .contrast: "contrast"
        case .crop: "crop"
        case .redeye: "redeye"
        case .filter: "filter"
        case .pen: "pen"
        case .text: "text"
        }
    }
}

/// The named colour filters of a `filter` edit.
public enum PostcardFilter: String, Sendable, Hashable, CaseIterable {
    /// Luma (0.299 R + 0.587 G + 0.114 B) in every channel.
    case grayscale
    /// The classic sepia matrix: red ≥ green ≥ blue.
    case sepia
    /// 255 minus each channel.
    case invert
    /// Red raised, blue lowered.
    case warm
    /// Blue raised, red lowered.
    case cool
    /// Faded, half-sepia look: lifted blacks, lower contrast.
    case vintage
}

/// A rectangle in edit coordinates.
public struct EditRect: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// A circle in edit coordinates; `radius` is a fraction of the image's shorter side.
public struct EditCircle: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var radius: Double
    public init(x: Double, y: Double, radius: Double) {
        self.x = x
        self.y = y
        self.radius = radius
    }
}

/// An sRGB colour, 8 bits a channel (`#rrggbb` in JSON).
public struct EditColor: Sendable, Hashable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `#rrggbb` (either case); nil for anything else.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 7, digits[0] == UInt8(ascii: "#"), let value = UInt32(hex.dropFirst(), radix: 16) else {
            return nil
        }
        self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }
}

/// One pen stroke: a polyline with round caps and joins; one point draws a dot.
public struct PenStroke: Sendable, Hashable {
    /// `(x, y)` pairs in edit coordinates.
    public var points: [EditPoint]
    public var color: EditColor
    /// Line width as a fraction of the image's shorter side.
    public var width: Double
    public init(points: [EditPoint], color: EditColor, width: Double) {
        self.points = points
        self.color = color
        self.width = width
    }
}

/// A point in edit coordinates.
public struct EditPoint: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// Text over the image: `(x, y)` is the top-left of its first line; `size` is the font size as a
/// fraction of the image's height.
public struct TextOverlay: Sendable, Hashable {
    public var text: String
    public var x: Double
    public var y: Double
    public var size: Double
    public var color: EditColor
    public init(text: String, x: Double, y: Double, size: Double, color: EditColor) {
        self.text = text
        self.x = x
        self.y = y
        self.size = size
        self.color = color
    }
}
