import Contract

/// Postage for one postcard by card size and destination country, in one currency.
public struct PostageTariff: Sendable, Hashable {
    /// Which tariff this is (logs; `printing v3 Deutsche Post`, `built-in`).
    public let name: String
    /// ISO 4217 code the prices are in.
    public let currency: String
    /// Price by card size, then by country; the key `*` stands for any other size or country.
    public let prices: [String: [String: Price]]

    /// A tariff from a table of prices.
    public init(name: String, currency: String, prices: [String: [String: Price]]) {
        self.name = name
        self.currency = currency
        self.prices = prices
    }

    /// A euro tariff by zone for every size: the home country, the rest of Europe, the world.
    public init(name: String, homeCountry: String, domestic: Price, europe: Price, world: Price) {
        var byCountry: [String: Price] = ["*": world]
        for country in Countries.europe { byCountry[country] = europe }
        byCountry[homeCountry] = domestic
        self.init(name: name, currency: ExchangeRates.base, prices: ["*": byCountry])
    }

    /// The postage of a card of `size` to `country` in ``currency``; a 400 naming `field` for a
    /// code that is not a country, a 422 when the tariff has no price for it.
    public func postage(to country: String, size: String, field: String) throws(ServiceError) -> Price {
        guard Countries.all.contains(country) else {
            throw ServiceError(
                .invalidArgument, "unknown country '\(country)'; use an ISO 3166-1 alpha-2 code such as SE",
                details: ["field": .string(field)])
        }
        guard let table = prices[size] ?? prices["*"], let price = table[country] ?? table["*"] else {
            throw ServiceError(
                .failedPrecondition, "the postage tariff '\(name)' has no \(size) price for \(country)",
                details: ["field": .string(field)])
        }
        return price
    }
}

/// Where the active postage tariff comes from: the printing service (``PrintingPostageClient``),
/// or a fixed tariff (``BuiltInPostageTariff``).
public protocol PostageTariffSource: Sendable {
    /// The tariff in force now, for cards of `size` to `countries` (which may be unchecked
    /// input: the source leaves invalid ones to ``PostageTariff/postage(to:size:field:)``).
    func tariff(size: String, countries: [String], metadata: RequestMetadata) async throws -> PostageTariff
}

/// A fixed tariff from the settings (`POSTAGE_*`).
public struct BuiltInPostageTariff: PostageTariffSource {
    /// The tariff it always answers.
    public let tariff: PostageTariff

    /// Wraps a fixed tariff.
    public init(_ tariff: PostageTariff) { self.tariff = tariff }

    public func tariff(size: String, countries: [String], metadata: RequestMetadata) async throws -> PostageTariff {
        tariff
    }
}
