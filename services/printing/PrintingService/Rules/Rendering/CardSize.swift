/// A postcard size, laid out landscape: the long side across.
public enum CardSize: String, Sendable, CaseIterable {
    case a6 = "A6"
    case a5 = "A5"
    case a4 = "A4"

    /// Bleed on each side, in millimetres.
    public static let bleedMillimetres = 3.0

    /// Width and height of the trimmed card in millimetres (landscape).
    public var millimetres: (width: Double, height: Double) {
        switch self {
        case .a6: (148, 105)
        case .a5: (210, 148)
        case .a4: (297, 210)
        }
    }

    /// PostScript points per millimetre.
    public static let pointsPerMillimetre = 72 / 25.4

    /// The trimmed card in points.
    public var trim: (width: Double, height: Double) {
        (millimetres.width * Self.pointsPerMillimetre, millimetres.height * Self.pointsPerMillimetre)
    }

    /// The bleed in points.
    public static var bleed: Double { bleedMillimetres * pointsPerMillimetre }

    /// The whole sheet (MediaBox): the card plus the bleed on each side, in points.
    public var media: (width: Double, height: Double) { (trim.width + 2 * Self.bleed, trim.height + 2 * Self.bleed) }
}
