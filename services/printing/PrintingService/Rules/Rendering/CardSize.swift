import PrintingContract

/// A card size as the renderer lays it out: in PostScript points, with the bleed.
extension CardSize {
    /// Bleed on each side, in millimetres.
    public static let bleedMillimetres = 3.0

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
