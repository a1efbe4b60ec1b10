import CommonContract
import Contract
import PrintingContract

/// Everything on one postcard: the size, the front image, the greeting, the recipient and the
/// stamp of the postage tariff in force.
public struct PostcardContent: Sendable {
    public var size: CardSize
    /// The front image and its EXIF orientation (1-8), if any.
    public var image: DecodedPixels? { didSet { frontCache = FrontCache() } }
    public var orientation: Int { didSet { frontCache = FrontCache() } }
    /// The non-destructive edits of the front image, applied in order wherever the front is drawn.
    public var edits: [PostcardEdit] { didSet { frontCache = FrontCache() } }
    public var greeting: String
    public var recipient: PostalRecipient?
    public var stamp: DecodedPixels?
    /// The edited front, shared by copies of this content.
    private(set) var frontCache = FrontCache()

    /// Creates the content of a card.
    public init(
        size: CardSize, image: DecodedPixels? = nil, orientation: Int = 1, greeting: String = "",
        recipient: PostalRecipient? = nil, stamp: DecodedPixels? = nil, edits: [PostcardEdit] = []
    ) {
        self.size = size
        self.image = image
        self.orientation = orientation
        self.edits = edits
        self.greeting = greeting
        self.recipient = recipient
        self.stamp = stamp
    }

    /// The front image with ``edits`` applied (made once, then shared); nil without an image.
    var editedFront: EditedFront? {
        guard let image else { return nil }
        return frontCache.front { EditedFront(image, orientation: orientation, edits: edits) }
    }

    /// The image's resolution on the printed card, in dots per inch (the lower of the two axes
    /// after its crops and cover-fitting over the card with its bleed, counted in the original's
    /// pixels even when it was decoded smaller); nil without an image.
    public var effectiveDPI: Int? {
        guard let image else { return nil }
        let shown = FrontGeometry(rawWidth: image.width, rawHeight: image.height, orientation: orientation).oriented
        let kept = FrontGeometry.cropFraction(edits)
        let (width, height) = (shown.width * kept.width / image.scale, shown.height * kept.height / image.scale)
        let inches = (size.media.width / 72, size.media.height / 72)
        return Int(min(width / inches.0, height / inches.1).rounded(.down))
    }

    /// The smallest decoding scale of an image shown `width` × `height` pixels (EXIF orientation
    /// applied) that still gives `dpi` on a card of `size` after the crops of `edits`.
    public static func decodeScale(
        width: Int, height: Int, size: CardSize, edits: [PostcardEdit], dpi: Double
    ) -> Double {
        let kept = FrontGeometry.cropFraction(edits)
        let inches = (size.media.width / 72, size.media.height / 72)
        return max(
            dpi * inches.0 / (Double(max(1, width)) * kept.width),
            dpi * inches.1 / (Double(max(1, height)) * kept.height))
    }

    /// Resolution a print PDF keeps at least (a JPEG is decoded at the smallest scale that gives it).
    public static let printDPI = 300.0

    /// Print resolution below which the front is flagged.
    public static let minimumDPI = 300

    /// A warning a person can read when the image is too coarse to print sharply.
    public var resolutionWarning: String? {
        guard let dpi = effectiveDPI, dpi < Self.minimumDPI else { return nil }
        return "the image prints at \(dpi) dpi on a \(size.rawValue) card; \(Self.minimumDPI) dpi or more prints sharp"
    }
}
