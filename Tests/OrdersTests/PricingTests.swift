import CommonContract
import Contract
import Foundation
import Testing

@testable import OrdersService

/// Prices, currencies and rounding: pure rules, no I/O.
@Suite("orders: pricing, currencies and rounding")
struct PricingTests {
    static let rates = ExchangeRates(
        date: "2026-11-20",
        rates: [
            "USD": ExchangeRate("1.0823")!, "JPY": ExchangeRate("162.73")!, "GBP": ExchangeRate("0.84515")!,
            "KRW": ExchangeRate("1512.37")!, "KWD": ExchangeRate("0.3321")!,
        ])
    static let tariff = PostageTariff(
        name: "test", homeCountry: "DE", domestic: Price("0.95")!, europe: Price("1.10")!, world: Price("1.65")!)
    static let pricing = Pricing(
        prices: PriceList(
            printing: ["A6": Price("1.49")!, "A5": Price("2.495")!, "A4": Price("3.99")!],
            ecard: Price("0.99")!))

    @Test("rates parse exactly and print back as published")
    func rateText() {
        #expect(ExchangeRate("1.0823")?.description == "1.0823")
        #expect(ExchangeRate("0.84515")?.mantissa == 84515)
        #expect(ExchangeRate("162.73")?.scale == 2)
        #expect(ExchangeRate("0.0005")?.description == "0.0005")
        for bad in ["", "-1", "1.", ".5", "1,2", "abc", "0", "0.000", "1e3", " 1.2"] {
            #expect(ExchangeRate(bad) == nil, "\(bad)")
        }
    }

    @Test("conversion rounds up to the next minor unit, never down, and never through Double")
    func roundingUp() throws {
        // 1.49 EUR × 1.0823 = 1.612627 USD → 1.62 (not 1.61)
        #expect(try Price("1.49")!.amount(in: "USD", rates: Self.rates) == 162)
        // exact: 1.00 EUR × 1.0823 = 1.0823 → 1.09
        #expect(try Price("1")!.amount(in: "USD", rates: Self.rates) == 109)
        // a sub-cent euro price is rounded up in euros too: 2.495 → 2.50
        #expect(try Price("2.495")!.amount(in: "EUR", rates: Self.rates) == 250)
        // an exact amount is not rounded: 2.00 EUR × 162.73 = 325.46 JPY → 326 yen (0 decimals)
        #expect(try Price("2")!.amount(in: "JPY", rates: Self.rates) == 326)
        // 1.00 EUR = 1512.37 KRW → 1513 won
        #expect(try Price("1")!.amount(in: "KRW", rates: Self.rates) == 1513)
        // three decimals: 1.00 EUR = 0.3321 KWD → 0.333 (333 fils)
        #expect(try Price("1")!.amount(in: "KWD", rates: Self.rates) == 333)
        // cross rates: 1000 yen → USD: 1000 / 162.73 × 1.0823 = 6.6508... → 6.66
        #expect(try Self.rates.convert(1000, from: "JPY", to: "USD") == 666)
        // an exactly representable cross amount stays exact
        #expect(try Self.rates.convert(10823, from: "USD", to: "EUR") == 10000)
    }

    @Test("the exponent table knows zero- and three-decimal currencies")
    func exponents() {
        #expect(CurrencyTable.exponent("JPY") == 0)
        #expect(CurrencyTable.exponent("KRW") == 0)
        #expect(CurrencyTable.exponent("ISK") == 0)
        #expect(CurrencyTable.exponent("EUR") == 2)
        #expect(CurrencyTable.exponent("KWD") == 3)
    }

    @Test("a postcard quote: printing per card plus postage per recipient, each rounded up; the lines add up")
    func postcardQuote() throws {
        let quote = try Self.pricing.postcard(
            size: "A6", countries: ["DE", "SE", "US", "SE"], currency: "USD", rates: Self.rates, tariff: Self.tariff)
        #expect(quote.total.currency == "USD")
        #expect(quote.rateDate == "2026-11-20")
        #expect(quote.rate == "1.0823")
        let printing = try #require(quote.lines.first)
        #expect(printing.kind == "printing" && printing.quantity == 4 && printing.unitAmount == 162)
        #expect(printing.amount == 648)
        let postage = quote.lines.dropFirst().map { ($0.country, $0.quantity, $0.unitAmount) }
        // 0.95 × 1.0823 = 1.028185 → 1.03; 1.10 × 1.0823 = 1.19053 → 1.20; 1.65 × 1.0823 = 1.785795 → 1.79
        #expect(postage.map(\.0) == ["DE", "SE", "US"])
        #expect(postage.map(\.1) == [1, 2, 1])
        #expect(postage.map(\.2) == [103, 120, 179])
        #expect(quote.total.amount == quote.lines.reduce(0) { $0 + $1.amount })
        #expect(quote.total.amount == 648 + 103 + 240 + 179)
    }

    @Test("a yen quote has whole yen")
    func yenQuote() throws {
        let quote = try Self.pricing.postcard(
            size: "A4", countries: ["JP"], currency: "JPY", rates: Self.rates, tariff: Self.tariff)
        // 3.99 × 162.73 = 649.2927 → 650; 1.65 × 162.73 = 268.5045 → 269
        #expect(quote.lines.map(\.amount) == [650, 269])
        #expect(quote.total == Money(amount: 919, currency: "JPY"))
    }

    @Test("unknown size, country or currency is a 400 naming the field")
    func badInput() {
        func field(_ work: () throws -> Void) -> String? {
            do {
                try work()
                return nil
            } catch let error as ServiceError {
                #expect(error.code == .invalidArgument)
                if case .string(let name) = error.details?["field"] { return name }
                return "?"
            } catch {
                return "!"
            }
        }
        #expect(
            field {
                _ = try Self.pricing.postcard(
                    size: "A7", countries: ["DE"], currency: "EUR", rates: Self.rates, tariff: Self.tariff)
            } == "size")
        #expect(
            field {
                _ = try Self.pricing.postcard(
                    size: "A6", countries: ["DE", "XX"], currency: "EUR", rates: Self.rates, tariff: Self.tariff)
            } == "recipients[1].country")
        #expect(
            field {
                _ = try Self.pricing.postcard(
                    size: "A6", countries: ["DE"], currency: "ZZZ", rates: Self.rates, tariff: Self.tariff)
            } == "currency")
        #expect(
            field {
                _ = try Self.pricing.postcard(
                    size: "A6", countries: [], currency: "EUR", rates: Self.rates, tariff: Self.tariff)
            } == "recipients")
    }

    @Test("gift prices convert from the item's currency, rounded up; e-cards per recipient")
    func giftAndEcard() throws {
        let gift = try Self.pricing.gift(
            GiftItem(id: "g1", title: "Mug", unitPrice: Money(amount: 1000, currency: "JPY"), quantity: 3),
            currency: "USD", rates: Self.rates)
        #expect(gift.lines.first?.unitAmount == 666)
        #expect(gift.total.amount == 1998)
        let ecard = try Self.pricing.ecard(recipients: 3, currency: "GBP", rates: Self.rates)
        // 0.99 × 0.84515 = 0.8366985 → 0.84
        #expect(ecard.total == Money(amount: 252, currency: "GBP"))
    }

    @Test("the shipped ECB sample parses; broken documents are refused")
    func ecbParser() throws {
        let sample = try ECBRatesParser.parse(Data(contentsOf: OrdersService.sampleRatesURL()))
        #expect(sample.date == "2026-11-20")
        #expect(sample.rates["USD"]?.description == "1.0823")
        #expect(sample.rates["JPY"] != nil && sample.rates["EUR"] == .one)
        #expect(sample.rates.count >= 30)
        let bad = [
            "<not xml", "<Cube><Cube time='2026-11-20'></Cube></Cube>",
            "<Cube><Cube currency='USD' rate='1.1'/></Cube>",
            "<Cube><Cube time='2026-11-20'><Cube currency='USD' rate='-1'/></Cube></Cube>",
            "<Cube><Cube time='20-11-2026'><Cube currency='USD' rate='1.1'/></Cube></Cube>",
        ]
        for document in bad {
            #expect(throws: ServiceError.self, "\(document)") { try ECBRatesParser.parse(Data(document.utf8)) }
        }
    }
}
