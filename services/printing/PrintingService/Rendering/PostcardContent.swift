import Contract

/// Everything on one postcard: the size, the front image, the greeting, the recipient and the
/// stamp of the postage tariff in force.
public struct PostcardContent: Sendable {
    public var size: CardSize
    /// The front image and its EXIF orientation (1-8), if any.
    public var image: DecodedPixels?
    public var orientation: Int
    public var greeting: String
    public var recipient: Orders.PostalRecipient?
    public var stamp: DecodedPixels?

    /// Creates the content of a card.
    public init(
        size: CardSize, image: DecodedPixels? = nil, orientation: Int = 1, greeting: String = "",
        recipient: Orders.PostalRecipient? = nil, stamp: DecodedPixels? = nil
    ) {
        self.size = size
        self.image = image
        self.orientation = orientation
        self.greeting = greeting
        self.recipient = recipient
        self.stamp = stamp
    }

    /// The image's resolution on the printed card, in dots per inch (the lower of the two axes
    /// after cover-fitting over the card with its bleed); nil without an image.
    public var effectiveDPI: Int? {
        guard let image else { return nil }
        let swaps = (5...8).contains(orientation)
        let (width, height) = swaps ? (image.height, image.width) : (image.width, image.height)
        let inches = (size.media.width / 72, size.media.height / 72)
        return Int(min(Double(width) / inches.0, Double(height) / inches.1).rounded(.down))
    }

    /// Print resolution below which the front is flagged.
    public static let minimumDPI = 300

    /// A warning a person can read when the image is too coarse to print sharply.
    public var resolutionWarning: String? {
        guard let dpi = effectiveDPI, dpi < Self.minimumDPI else { return nil }
        return "the image prints at \(dpi) dpi on a \(size.rawValue) card; \(Self.minimumDPI) dpi or more prints sharp"
    }
}
