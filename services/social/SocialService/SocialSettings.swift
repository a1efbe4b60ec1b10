import Contract
import Foundation
import ServiceKit

/// The settings social adds to every worker's: where the catalogue comes from.
enum SocialSettings {
    static let catalogProvider = Setting(
        "CATALOG_PROVIDER", default: "sandbox",
        "where products come from: `sandbox` (20,000 generated products in PostgreSQL, works offline) or `amazon` "
            + "(the Product Advertising API 5.0; AMAZON_* settings)")
    static let amazonAccessKey = Setting("AMAZON_ACCESS_KEY", default: nil, "PA-API access key (CATALOG_PROVIDER=amazon)")
    static let amazonSecretKey = Setting(
        "AMAZON_SECRET_KEY", default: nil, "PA-API secret key, signs each request (SigV4)", secret: true)
    static let amazonPartnerTag = Setting("AMAZON_PARTNER_TAG", default: nil, "the Associates partner tag, e.g. store-20")
    static let amazonMarketplace = Setting(
        "AMAZON_MARKETPLACE", default: "www.amazon.com", "the PA-API marketplace, e.g. www.amazon.de")
    static let amazonHost = Setting(
        "AMAZON_HOST", default: "webservices.amazon.com", "the marketplace's PA-API host, e.g. webservices.amazon.de")
    static let amazonRegion = Setting(
        "AMAZON_REGION", default: "us-east-1", "the host's signing region (eu-west-1 for European marketplaces)")
    static let amazonEndpoint = Setting(
        "AMAZON_ENDPOINT", default: nil, "where PA-API calls go (default https://AMAZON_HOST; a stand-in's URL offline)")
    static let catalogCacheSeconds = Setting(
        "CATALOG_CACHE_S", default: "300", "how long the amazon catalogue's answers are reused, in seconds (0: never)",
        formerly: [.init("CATALOG_CACHE_SECONDS")])

    /// The settings this service adds to every worker's.
    static let own = [
        catalogProvider, amazonAccessKey, amazonSecretKey, amazonPartnerTag, amazonMarketplace, amazonHost,
        amazonRegion, amazonEndpoint, catalogCacheSeconds,
    ]

    /// The Amazon catalogue's settings when `CATALOG_PROVIDER` is `amazon`; nil for the sandbox
    /// catalogue; a bad setting for any other provider.
    static func amazon(_ environment: ProcessEnvironment) throws -> AmazonSettings? {
        let provider = try environment.required(catalogProvider)
        switch provider {
        case "sandbox":
            return nil
        case "amazon":
            return AmazonSettings(
                accessKey: try environment.required(amazonAccessKey),
                secretKey: try environment.required(amazonSecretKey),
                partnerTag: try environment.required(amazonPartnerTag),
                marketplace: try environment.required(amazonMarketplace),
                host: try environment.required(amazonHost), region: try environment.required(amazonRegion),
                endpoint: environment.string(amazonEndpoint),
                cacheTTL: TimeInterval(try environment.int(catalogCacheSeconds, in: 0...86_400)))
        default:
            throw ServiceError(
                .invalidArgument, "CATALOG_PROVIDER=\(provider) is not valid: expected sandbox or amazon")
        }
    }
}
