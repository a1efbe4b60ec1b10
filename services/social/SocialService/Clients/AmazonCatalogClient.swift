import AsyncHTTPClient
import CommonContract
import Contract
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import SocialContract
import Store

/// How social reaches the Amazon Product Advertising API 5.0.
public struct AmazonSettings: Sendable {
    public var accessKey: String
    public var secretKey: String
    public var partnerTag: String
    /// `www.amazon.com`, `www.amazon.de`, ...
    public var marketplace: String
    /// The locale's host, signed as the `host` header (`webservices.amazon.com`).
    public var host: String
    /// The locale's signing region (`us-east-1`, `eu-west-1`, ...).
    public var region: String
    /// Where requests go: `https://<host>`, or a stand-in's address in tests.
    public var endpoint: String
    /// How long answers are reused (zero: never).
    public var cacheTTL: TimeInterval
    /// The most answers kept.
    public var cacheEntries = 10_000
    /// Throttled answers (429) waited out per call before giving up with `unavailable`.
    public var maxThrottles = 3
    /// The longest wait a `Retry-After` may ask for before the call gives up instead.
    public var maxWait: Duration = .seconds(10)
    public var timeout: Int64 = 5

    public init(
        accessKey: String, secretKey: String, partnerTag: String, marketplace: String = "www.amazon.com",
        host: String = "webservices.amazon.com", region: String = "us-east-1", endpoint: String? = nil,
        cacheTTL: TimeInterval = 300
    ) {
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.partnerTag = partnerTag
        self.marketplace = marketplace
        self.host = host
        self.region = region
        self.endpoint = endpoint ?? "https://\(host)"
        self.cacheTTL = cacheTTL
    }
}

/// The `amazon` catalogue: `SearchItems` and `GetItems` of the Product Advertising API 5.0,
/// signed with AWS Signature Version 4 (service `ProductAdvertisingAPI`), with the partner tag
/// and marketplace of the settings. A throttled call (429) waits what `Retry-After` says (else a
/// doubling back-off) and tries again, up to ``AmazonSettings/maxThrottles`` times; any other
/// failure is `unavailable` (503 at the gateway). Answers are cached for
/// ``AmazonSettings/cacheTTL`` (searches by their request, items by ASIN). The secret key is
/// never logged. Nothing here touches the database.
public struct AmazonCatalogClient: CatalogProvider {
    public var name: String { "amazon" }
    let settings: AmazonSettings
    let http: HTTPClient
    let clock: any WallClock
    let logger: Logger
    let sleep: @Sendable (Duration) async throws -> Void
    let searches: ResponseCache<Page<Social.CatalogItem>>
    let products: ResponseCache<Social.CatalogItem>
    let signer: SigV4

    /// The API's signing service name.
    public static let service = "ProductAdvertisingAPI"
    /// What each item is asked with.
    static let resources = [
        "ItemInfo.Title", "ItemInfo.ByLineInfo", "ItemInfo.Features", "ItemInfo.Classifications",
        "Images.Primary.Large", "Offers.Listings.Price", "Offers.Listings.Availability.Type",
        "CustomerReviews.StarRating",
    ]
    /// The API's page size and last page.
    static let pageSize = 10
    static let lastPage = 10
    /// Social's categories as the API's search indexes (US names).
    static let searchIndexes = [
        "books": "Books", "toys": "ToysAndGames", "kitchen": "HomeAndKitchen", "electronics": "Electronics",
        "garden": "GardenAndOutdoor", "sports": "SportsAndOutdoors", "beauty": "Beauty", "games": "VideoGames",
        "music": "Music", "home": "HomeAndKitchen",
    ]

    public init(
        settings: AmazonSettings, http: HTTPClient = .shared, clock: any WallClock, logger: Logger,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.settings = settings
        self.http = http
        self.clock = clock
        self.logger = logger
        self.sleep = sleep
        searches = ResponseCache(ttl: settings.cacheTTL, capacity: settings.cacheEntries)
        products = ResponseCache(ttl: settings.cacheTTL, capacity: settings.cacheEntries)
        signer = SigV4(
            accessKey: settings.accessKey, secretKey: settings.secretKey, region: settings.region,
            service: Self.service)
    }

    /// An ASIN: 10 capital letters and digits. Anything else is no item (and is never sent).
    static func isASIN(_ id: String) -> Bool {
        id.utf8.count == 10 && id.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) }
    }

    public func search(_ query: CatalogQuery) async throws -> Page<Social.CatalogItem> {
        var index = "All"
        if let category = query.category {
            guard let known = Self.searchIndexes[category] else {
                throw ServiceError.invalidArgument(
                    "category is one of \(Self.searchIndexes.keys.sorted().joined(separator: ", "))", field: "category")
            }
            index = known
        }
        // The cursor of this provider is the next page's number.
        let page = Int(query.after?.micros ?? 1)
        guard (1...Self.lastPage).contains(page) else {
            throw ServiceError.invalidArgument("cursor is not one this API gave out", field: "cursor")
        }
        let count = min(query.limit, Self.pageSize)
        // The API's prices are in the currency's smallest unit, as social's are.
        let body = PAAPI.SearchItems(
            Keywords: query.text ?? query.category ?? "gift", SearchIndex: index, ItemCount: count, ItemPage: page,
            MinPrice: query.minPrice, MaxPrice: query.maxPrice, PartnerTag: settings.partnerTag,
            PartnerType: "Associates", Marketplace: settings.marketplace, Resources: Self.resources)
        let payload = try Self.encode(body)
        let key = String(decoding: payload, as: UTF8.self)
        if let cached = await searches.get(key, now: clock.now()) { return cached }
        let reply = try await call("SearchItems", path: "/paapi5/searchitems", payload: payload)
        let items = (reply.SearchResult?.Items ?? []).map(Self.item)
        let total = reply.SearchResult?.TotalResultCount ?? 0
        let more = page < Self.lastPage && items.count == count && page * count < total
        let result = Page(
            items: items,
            nextCursor: more ? KeysetCursor.text(micros: Int64(page + 1), id: "00000000-0000-0000-0000-000000000000") : nil)
        await searches.put(key, result, now: clock.now())
        for item in items { await products.put(item.id, item, now: clock.now()) }
        return result
    }

    public func item(_ id: String) async throws -> Social.CatalogItem? {
        try await items([id])[id]
    }

    public func items(_ ids: [String]) async throws -> [String: Social.CatalogItem] {
        var found: [String: Social.CatalogItem] = [:]
        var missing: [String] = []
        let now = clock.now()
        for id in Set(ids) where Self.isASIN(id) {
            if let item = await products.get(id, now: now) { found[id] = item } else { missing.append(id) }
        }
        for start in stride(from: 0, to: missing.count, by: Self.pageSize) {
            let batch = Array(missing.sorted()[start..<min(start + Self.pageSize, missing.count)])
            let body = PAAPI.GetItems(
                ItemIds: batch, PartnerTag: settings.partnerTag, PartnerType: "Associates",
                Marketplace: settings.marketplace, Resources: Self.resources)
            let reply = try await call("GetItems", path: "/paapi5/getitems", payload: try Self.encode(body))
            for raw in reply.ItemsResult?.Items ?? [] {
                let item = Self.item(raw)
                found[item.id] = item
                await products.put(item.id, item, now: clock.now())
            }
        }
        return found
    }

    /// One signed call, throttling waited out.
    func call(_ operation: String, path: String, payload: [UInt8]) async throws -> PAAPI.Reply {
        var throttles = 0
        while true {
            let amzDate = SigV4.amzDate(clock.now())
            let headers = [
                ("content-encoding", "amz-1.0"), ("content-type", "application/json; charset=utf-8"),
                ("host", settings.host), ("x-amz-date", amzDate),
                ("x-amz-target", "com.amazon.paapi5.v1.ProductAdvertisingAPIv1.\(operation)"),
            ]
            var request = HTTPClientRequest(url: settings.endpoint + path)
            request.method = .POST
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            request.headers.add(
                name: "Authorization",
                value: signer.authorization(method: "POST", path: path, headers: headers, payload: payload, amzDate: amzDate))
            request.body = .bytes(ByteBuffer(bytes: payload))
            let response: HTTPClientResponse
            let body: ByteBuffer
            do {
                response = try await http.execute(request, timeout: .seconds(settings.timeout))
                body = try await response.body.collect(upTo: 8 << 20)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                logger.warning("the product catalogue did not answer", metadata: ["operation": "\(operation)", "error": "\(type(of: error))"])
                throw ServiceError(.unavailable, "the product catalogue cannot be reached")
            }
            let reply = try? JSONDecoder().decode(PAAPI.Reply.self, from: Data(body.readableBytesView))
            if response.status == .tooManyRequests {
                throttles += 1
                let wait = response.headers.first(name: "Retry-After").flatMap(Int.init).map { Duration.seconds($0) }
                    ?? .milliseconds(250 << min(throttles - 1, 6))
                guard throttles <= settings.maxThrottles, wait <= settings.maxWait else {
                    throw ServiceError(.unavailable, "the product catalogue is throttling requests; try again shortly")
                }
                logger.notice("catalogue throttled", metadata: ["operation": "\(operation)", "waitMs": "\(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)"])
                try await sleep(wait)
                continue
            }
            if response.status == .notFound, reply?.Errors?.first?.Code == "NoResults" {
                return PAAPI.Reply(SearchResult: PAAPI.SearchResult(Items: [], TotalResultCount: 0))
            }
            guard response.status == .ok, let reply else {
                let code = reply?.Errors?.first?.Code ?? "HTTP \(response.status.code)"
                logger.error("the product catalogue refused a call", metadata: ["operation": "\(operation)", "code": "\(code)"])
                throw ServiceError(.unavailable, "the product catalogue answered \(code)")
            }
            return reply
        }
    }

    static func encode(_ body: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(body))
    }

    /// A product as social shows it. Prices come as decimals of the currency; stored in minor
    /// units (whole yen for JPY).
    static func item(_ raw: PAAPI.Item) -> Social.CatalogItem {
        let listing = raw.Offers?.Listings?.first
        let currency = listing?.Price?.Currency ?? "USD"
        let exponent = ["JPY": 0, "KRW": 0, "HUF": 2, "CLP": 0, "ISK": 0][currency] ?? 2
        var scale = 1.0
        for _ in 0..<exponent { scale *= 10 }
        let amount = Int64(((listing?.Price?.Amount ?? 0) * scale).rounded())
        let type = listing?.Availability?.type
        let features = raw.ItemInfo?.Features?.DisplayValues ?? []
        return Social.CatalogItem(
            id: raw.ASIN, title: raw.ItemInfo?.Title?.DisplayValue ?? raw.ASIN,
            brand: raw.ItemInfo?.ByLineInfo?.Brand?.DisplayValue ?? raw.ItemInfo?.ByLineInfo?.Manufacturer?.DisplayValue
                ?? "",
            category: raw.ItemInfo?.Classifications?.ProductGroup?.DisplayValue ?? "",
            description: features.joined(separator: ". "), features: features,
            price: Money(amount: amount, currency: currency),
            available: amount > 0 && (type == nil || type == "Now"),
            imageUrl: raw.Images?.Primary?.Large?.URL ?? "", link: raw.DetailPageURL ?? "",
            rating: min(5, max(1, raw.CustomerReviews?.StarRating?.Value ?? 1)))
    }
}

/// The parts of the API's answers social reads (their member names as the API spells them).
enum PAAPI {
    struct SearchItems: Encodable {
        var Keywords: String
        var SearchIndex: String
        var ItemCount: Int
        var ItemPage: Int
        var MinPrice: Int64?
        var MaxPrice: Int64?
        var PartnerTag: String
        var PartnerType: String
        var Marketplace: String
        var Resources: [String]
    }
    struct GetItems: Encodable {
        var ItemIds: [String]
        var PartnerTag: String
        var PartnerType: String
        var Marketplace: String
        var Resources: [String]
    }
    struct Reply: Decodable {
        var SearchResult: SearchResult?
        var ItemsResult: ItemsResult?
        var Errors: [APIError]?
    }
    struct SearchResult: Decodable {
        var Items: [Item]?
        var TotalResultCount: Int?
    }
    struct ItemsResult: Decodable { var Items: [Item]? }
    struct APIError: Decodable {
        var Code: String?
        var Message: String?
    }
    struct Item: Decodable {
        var ASIN: String
        var DetailPageURL: String?
        var ItemInfo: ItemInfo?
        var Images: Images?
        var Offers: Offers?
        var CustomerReviews: Reviews?
    }
    struct Display: Decodable { var DisplayValue: String? }
    struct ItemInfo: Decodable {
        var Title: Display?
        var ByLineInfo: ByLine?
        var Features: Features?
        var Classifications: Classifications?
    }
    struct ByLine: Decodable {
        var Brand: Display?
        var Manufacturer: Display?
    }
    struct Features: Decodable { var DisplayValues: [String]? }
    struct Classifications: Decodable { var ProductGroup: Display? }
    struct Images: Decodable { var Primary: Primary? }
    struct Primary: Decodable { var Large: Image? }
    struct Image: Decodable { var URL: String? }
    struct Offers: Decodable { var Listings: [Listing]? }
    struct Listing: Decodable {
        var Price: Price?
        var Availability: Availability?
    }
    struct Price: Decodable {
        var Amount: Double?
        var Currency: String?
    }
    struct Availability: Decodable {
        var type: String?
        enum CodingKeys: String, CodingKey { case type = "Type" }
    }
    struct Reviews: Decodable { var StarRating: Rating? }
    struct Rating: Decodable { var Value: Double? }
}

/// Answers kept for a while: at most `capacity`, each until `ttl` seconds after it was put
/// (a full cache first drops what has expired, then the oldest).
public actor ResponseCache<Value: Sendable> {
    let ttl: TimeInterval
    let capacity: Int
    private var entries: [String: (expires: Date, value: Value)] = [:]
    private var order: [String] = []

    public init(ttl: TimeInterval, capacity: Int) {
        self.ttl = ttl
        self.capacity = max(1, capacity)
    }

    public func get(_ key: String, now: Date) -> Value? {
        guard let entry = entries[key] else { return nil }
        guard entry.expires > now else {
            entries[key] = nil
            return nil
        }
        return entry.value
    }

    public func put(_ key: String, _ value: Value, now: Date) {
        guard ttl > 0 else { return }
        if entries[key] == nil {
            if entries.count >= capacity {
                entries = entries.filter { $0.value.expires > now }
                order.removeAll { entries[$0] == nil }
                while entries.count >= capacity, !order.isEmpty { entries[order.removeFirst()] = nil }
            }
            order.append(key)
        }
        entries[key] = (now.addingTimeInterval(ttl), value)
    }
}
