import Contract

/// Postage for one postcard by destination: the home country, the rest of Europe, the world.
public struct PostageTariff: Sendable, Hashable {
    /// Which tariff this is (shown in the quote line descriptions and logs).
    public let name: String
    /// ISO 3166-1 alpha-2 code of the country the cards are posted in.
    public let homeCountry: String
    /// Postage within the home country.
    public let domestic: Price
    /// Postage to another European country.
    public let europe: Price
    /// Postage anywhere else.
    public let world: Price

    /// Creates a tariff.
    public init(name: String, homeCountry: String, domestic: Price, europe: Price, world: Price) {
        self.name = name
        self.homeCountry = homeCountry
        self.domestic = domestic
        self.europe = europe
        self.world = world
    }

    /// The postage to `country`, or a 400 naming `field` for a code that is not a country.
    public func postage(to country: String, field: String) throws(ServiceError) -> Price {
        guard Countries.all.contains(country) else {
            throw ServiceError(
                .invalidArgument, "unknown country '\(country)'; use an ISO 3166-1 alpha-2 code such as SE",
                details: ["field": .string(field)])
        }
        if country == homeCountry { return domestic }
        return Countries.europe.contains(country) ? europe : world
    }
}

/// Where the active postage tariff comes from. The tariff belongs to the printing service; until
/// it answers over MDP, ``BuiltInPostageTariff`` stands in.
public protocol PostageTariffSource: Sendable {
    /// The tariff in force now.
    func activeTariff(metadata: RequestMetadata) async throws -> PostageTariff
}

/// A fixed tariff from the settings (`POSTAGE_*`).
public struct BuiltInPostageTariff: PostageTariffSource {
    /// The tariff it always answers.
    public let tariff: PostageTariff

    /// Wraps a fixed tariff.
    public init(_ tariff: PostageTariff) { self.tariff = tariff }

    public func activeTariff(metadata: RequestMetadata) async throws -> PostageTariff { tariff }
}
