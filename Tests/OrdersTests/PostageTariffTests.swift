import Contract
import Testing

@testable import OrdersService

/// Postage from a tariff by size and country, in the tariff's own currency.
@Suite("orders: postage tariffs by size, country and currency")
struct PostageTariffTests {
    static let rates = ExchangeRates(date: "2026-11-20", rates: ["SEK": ExchangeRate("11.5")!])

    @Test("the built-in zones: home, Europe, world, for every size")
    func builtIn() throws {
        let tariff = PostageTariff(
            name: "built-in", homeCountry: "DE", domestic: Price("0.95")!, europe: Price("1.10")!,
            world: Price("1.65")!)
        #expect(try tariff.postage(to: "DE", size: "A4", field: "f") == Price("0.95")!)
        #expect(try tariff.postage(to: "SE", size: "A6", field: "f") == Price("1.10")!)
        #expect(try tariff.postage(to: "JP", size: "A5", field: "f") == Price("1.65")!)
        #expect(tariff.currency == "EUR")
    }

    @Test("a printing tariff in SEK: priced per size, converted to the order's currency rounded up")
    func foreignCurrency() throws {
        let tariff = PostageTariff(
            name: "printing v1", currency: "SEK", prices: ["A6": ["SE": Price(mantissa: 1500, scale: 2)]])
        let pricing = Pricing(
            prices: PriceList(printing: ["A6": Price("1.49")!, "A5": Price("2")!], ecard: Price("1")!))
        let breakdown = try pricing.postcard(
            size: "A6", countries: ["SE"], currency: "EUR", rates: Self.rates, tariff: tariff)
        // 15.00 SEK / 11.5 = 1.304... EUR → 1.31
        #expect(breakdown.lines.last?.unitAmount == 131)
        #expect(breakdown.lines.last?.kind == "postage")
        #expect(throws: ServiceError.self) {
            try pricing.postcard(size: "A5", countries: ["SE"], currency: "EUR", rates: Self.rates, tariff: tariff)
        }
        #expect(throws: ServiceError.self) {
            try tariff.postage(to: "XX", size: "A6", field: "recipients[0].country")
        }
    }
}
