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

/// Printing's postage answers kept by orders for a while, with time moved by hand.
@Suite("orders: the postage cache")
struct PostageCacheTests {
    static let printing = PostageTariff(
        name: "printing v2 Post", currency: "EUR", prices: ["A6": ["SE": Price("1.20")!]])
    static let builtIn = PostageTariff(
        name: "built-in", homeCountry: "DE", domestic: Price("0.95")!, europe: Price("1.10")!, world: Price("1.65")!)

    @Test("an answer is reused until its time is up; the countries' order does not matter")
    func reuse() {
        let cache = PostageCache(ttl: .seconds(30))
        let start = ContinuousClock.now
        let key = PostageCache.key(size: "A6", countries: ["SE", "DE"])
        #expect(key == PostageCache.key(size: "A6", countries: ["DE", "SE"]))
        #expect(key != PostageCache.key(size: "A5", countries: ["DE", "SE"]))
        #expect(cache.lookup(key, now: start) == nil)
        cache.store(Self.printing, for: key, absent: false, now: start)
        #expect(cache.lookup(key, now: start + .seconds(29)) == Self.printing)
        #expect(cache.lookup(key, now: start + .seconds(30)) == nil, "expired at the TTL")
        #expect(cache.count == 0, "an expired entry is dropped")
    }

    @Test("the built-in stand-in is believed for a short time only, so a printing worker is asked soon")
    func absent() {
        let cache = PostageCache(ttl: .seconds(30), absentTTL: .seconds(5))
        let start = ContinuousClock.now
        cache.store(Self.builtIn, for: "A6:SE", absent: true, now: start)
        #expect(cache.lookup("A6:SE", now: start + .seconds(4)) == Self.builtIn)
        #expect(cache.lookup("A6:SE", now: start + .seconds(5)) == nil)
    }

    @Test("a TTL of zero keeps nothing; a full cache starts over")
    func bounds() {
        let off = PostageCache(ttl: .zero)
        let start = ContinuousClock.now
        off.store(Self.printing, for: "A6:SE", absent: false, now: start)
        #expect(off.lookup("A6:SE", now: start) == nil && off.count == 0)

        let small = PostageCache(ttl: .seconds(30), capacity: 2)
        small.store(Self.printing, for: "A6:SE", absent: false, now: start)
        small.store(Self.printing, for: "A6:DE", absent: false, now: start)
        #expect(small.count == 2)
        small.store(Self.printing, for: "A6:SE", absent: false, now: start)
        #expect(small.count == 2, "replacing a key held does not empty the map")
        small.store(Self.printing, for: "A6:FR", absent: false, now: start)
        #expect(small.count == 1 && small.lookup("A6:FR", now: start) == Self.printing)
    }
}
