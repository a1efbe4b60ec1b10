import CommonContract
import Contract
import OrdersContract

/// Prices postcards, e-cards and gifts in the currency the user picks: each unit cost is
/// converted from euros and **rounded up** to the minor unit on its own, and the total is the
/// sum of the rounded lines, so the breakdown always adds up.
public struct Pricing: Sendable {
    /// Printing and e-card prices.
    public let prices: PriceList
    /// At most this many recipients per order.
    public static let maxRecipients = 100

    /// Creates the pricing rules.
    public init(prices: PriceList) { self.prices = prices }

    /// A postcard of `size` to one card per country in `countries`; `field` names the request
    /// fields for errors (`size`, `recipients[2].country`).
    public func postcard(
        size: String, countries: [String], currency: String, rates: ExchangeRates, tariff: PostageTariff,
        sizeField: String = "size", recipientsField: String = "recipients",
        countryField: (Int) -> String = { "recipients[\($0)].country" }
    ) throws(ServiceError) -> PriceBreakdown {
        let rate = try rates.rate(currency)
        try Self.checkCount(countries.count, field: recipientsField)
        let printing = try prices.printing(size, field: sizeField).amount(in: currency, rates: rates)
        var lines = [
            PriceLine(
                kind: "printing", description: "\(size) postcard", quantity: countries.count, unitAmount: printing,
                amount: printing * Int64(countries.count))
        ]
        var postageByCountry: [(country: String, count: Int)] = []
        for (index, country) in countries.enumerated() {
            _ = try tariff.postage(to: country, size: size, field: countryField(index))
            if let at = postageByCountry.firstIndex(where: { $0.country == country }) {
                postageByCountry[at].count += 1
            } else {
                postageByCountry.append((country, 1))
            }
        }
        for (country, count) in postageByCountry {
            let unit = try tariff.postage(to: country, size: size, field: "country").amount(
                in: currency, from: tariff.currency, rates: rates)
            lines.append(
                PriceLine(
                    kind: "postage", description: "postage to \(country)", country: country, quantity: count,
                    unitAmount: unit, amount: unit * Int64(count)))
        }
        return Self.breakdown(lines, currency: currency, rates: rates, rate: rate)
    }

    /// An e-card to `recipients` addresses: one `ecard` line (zero when e-cards are free), never a
    /// printing or postage line.
    public func ecard(recipients: Int, currency: String, rates: ExchangeRates, field: String = "ecard.recipients")
        throws(ServiceError) -> PriceBreakdown
    {
        let rate = try rates.rate(currency)
        try Self.checkCount(recipients, field: field)
        let unit = try prices.ecard.amount(in: currency, rates: rates)
        let line = PriceLine(
            kind: "ecard", description: "e-card", quantity: recipients, unitAmount: unit,
            amount: unit * Int64(recipients))
        return Self.breakdown([line], currency: currency, rates: rates, rate: rate)
    }

    /// A catalog item, its unit price converted (rounded up) from its own currency.
    public func gift(_ item: GiftItem, currency: String, rates: ExchangeRates) throws(ServiceError) -> PriceBreakdown {
        let rate = try rates.rate(currency)
        guard (1...99).contains(item.quantity) else {
            throw ServiceError.invalidArgument("quantity is 1 to 99", field: "gift.item.quantity")
        }
        guard item.unitPrice.amount > 0, item.unitPrice.amount <= 100_000_000 else {
            throw ServiceError.invalidArgument("the unit price is positive", field: "gift.item.unitPrice.amount")
        }
        _ = try rates.rate(item.unitPrice.currency, field: "gift.item.unitPrice.currency")
        let unit = try rates.convert(item.unitPrice.amount, from: item.unitPrice.currency, to: currency)
        let line = PriceLine(
            kind: "gift", description: item.title, quantity: item.quantity, unitAmount: unit,
            amount: unit * Int64(item.quantity))
        return Self.breakdown([line], currency: currency, rates: rates, rate: rate)
    }

    static func checkCount(_ count: Int, field: String) throws(ServiceError) {
        guard (1...maxRecipients).contains(count) else {
            throw ServiceError.invalidArgument("send 1 to \(maxRecipients) recipients", field: field)
        }
    }

    static func breakdown(_ lines: [PriceLine], currency: String, rates: ExchangeRates, rate: ExchangeRate)
        -> PriceBreakdown
    {
        PriceBreakdown(
            lines: lines, total: Money(amount: lines.reduce(0) { $0 + $1.amount }, currency: currency),
            rateDate: rates.date, rate: rate.description)
    }
}

/// Short names for the contract's value types inside the service.
public typealias PriceLine = Orders.PriceLine
/// A priced breakdown.
public typealias PriceBreakdown = Orders.PriceBreakdown
/// A gift item snapshot.
public typealias GiftItem = Orders.GiftItem
