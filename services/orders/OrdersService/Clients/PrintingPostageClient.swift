import Contract
import Logging
import PrintingContract
import ServiceKit

/// The postage tariff in force at the printing service, asked over MDP (`postage_rates`) for the
/// sizes and countries being priced. When no printing worker is registered with the broker (a
/// deployment without printing), the built-in tariff stands in and a notice is logged; every
/// other answer of printing, such as "no tariff in force", is passed on. Answers are kept for
/// `cacheTTL` (``PostageCache``), so a new postage file reaches quotes within that time.
public struct PrintingPostageClient: PostageTariffSource {
    let bus: BusClient
    let fallback: PostageTariff
    let logger: Logger
    let cache: PostageCache

    /// Asks printing through `bus`; `fallback` when printing is absent; answers kept for
    /// `cacheTTL` (zero: ask every time).
    public init(bus: BusClient, fallback: PostageTariff, cacheTTL: Duration = .seconds(30), logger: Logger) {
        self.bus = bus
        self.fallback = fallback
        self.logger = logger
        self.cache = PostageCache(ttl: cacheTTL)
    }

    /// The card sizes the printer's postage file prices.
    static let printedSizes = Set(CardSize.names)

    public func tariff(size: String, countries: [String], metadata: RequestMetadata) async throws -> PostageTariff {
        var known: [String] = []
        for country in countries where Countries.all.contains(country) && !known.contains(country) {
            known.append(country)
        }
        guard Self.printedSizes.contains(size), !known.isEmpty else {
            return PostageTariff(name: "printing", currency: ExchangeRates.base, prices: [:])
        }
        let key = PostageCache.key(size: size, countries: known)
        if let cached = cache.lookup(key, now: .now) { return cached }
        guard try await bus.isServed(ServiceName.printing.rawValue) else { return absent(key) }
        let reply: Printing.PostageRates.Reply
        do {
            reply = try await rates(size: size, countries: known, metadata: metadata)
        } catch let error as ServiceError where error.code == .unavailable {
            return absent(key)
        }
        let exponent = CurrencyTable.exponent(reply.currency)
        var byCountry: [String: Price] = [:]
        for price in reply.prices { byCountry[price.country] = Price(mantissa: price.amount, scale: exponent) }
        let tariff = PostageTariff(
            name: "printing v\(reply.tariffId) \(reply.carrier)", currency: reply.currency, prices: [size: byCountry])
        cache.store(tariff, for: key, absent: false, now: .now)
        return tariff
    }

    /// Asks printing; untyped so that the caller can pick the one error it handles.
    private func rates(size: String, countries: [String], metadata: RequestMetadata) async throws
        -> Printing.PostageRates.Reply
    {
        try await bus.call(Printing.PostageRates.self, .init(size: size, countries: countries), metadata: metadata)
    }

    private func absent(_ key: String) -> PostageTariff {
        logger.notice("no printing worker is registered; pricing postage with the built-in tariff")
        cache.store(fallback, for: key, absent: true, now: .now)
        return fallback
    }
}
