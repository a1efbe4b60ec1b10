import Contract
import PrintingContract

/// A parsed, valid postage file: who carries the cards, in which currency, from when, the
/// zones and prices, and the stamp to print. Pure value; ``PostageFileParser`` makes one.
public struct PostageFile: Sendable, Hashable {
    /// The printer's label for this file (its `version` attribute).
    public var label: String
    public var carrier: String
    /// ISO 4217; every amount is in its minor units.
    public var currency: String
    /// Where the cards are posted from (ISO 3166-1 alpha-2).
    public var origin: String
    /// `YYYY-MM-DD`.
    public var validFrom: String
    public var validTo: String?
    public var zones: [Printing.PostageZone]
    public var prices: [Printing.PostagePrice]
    public var stamp: StampImage

    /// The card sizes every zone must price.
    public static let sizes = CardSize.names

    /// Its zones and prices, which price a card.
    public var table: PostageTable { PostageTable(zones: zones, prices: prices) }
}
