import Contract
import PrintingContract

/// The zones and prices of a postage tariff, and the rule that picks a price: the country's own
/// price, else its zone's, else the catch-all zone's.
public struct PostageTable: Sendable, Hashable {
    public var zones: [Printing.PostageZone]
    public var prices: [Printing.PostagePrice]

    /// Creates a table.
    public init(zones: [Printing.PostageZone], prices: [Printing.PostagePrice]) {
        self.zones = zones
        self.prices = prices
    }

    /// The postage of one card of `size` to `country`; `nil` for a size the tariff does not price.
    public func postage(size: String, country: String) -> Printing.CountryPostage? {
        if let own = prices.first(where: { $0.country == country && $0.size == size }) {
            return Printing.CountryPostage(country: country, zone: "country:\(country)", amount: own.amount)
        }
        let zone = zones.first { $0.countries.contains(country) } ?? zones.first { $0.isDefault }
        guard let zone, let price = prices.first(where: { $0.zone == zone.id && $0.size == size }) else {
            return nil
        }
        return Printing.CountryPostage(country: country, zone: zone.id, amount: price.amount)
    }
}
