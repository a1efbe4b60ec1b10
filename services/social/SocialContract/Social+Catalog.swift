import CommonContract
import Contract

extension Social {
    /// A product of the catalogue. Prices are integer minor units of `currency`.
    public struct CatalogItem: Codable, Sendable, Equatable, Hashable {
        public var id: String
        public var title: String
        public var brand: String
        public var category: String
        public var description: String
        public var features: [String]
        public var price: Money
        public var available: Bool
        public var imageUrl: String
        /// Where the product can be seen at its source.
        public var link: String
        /// 1.0 to 5.0, one decimal.
        public var rating: Double
        public init(
            id: String, title: String, brand: String, category: String, description: String, features: [String],
            price: Money, available: Bool, imageUrl: String, link: String, rating: Double
        ) {
            self.id = id
            self.title = title
            self.brand = brand
            self.category = category
            self.description = description
            self.features = features
            self.price = price
            self.available = available
            self.imageUrl = imageUrl
            self.link = link
            self.rating = rating
        }
    }

    /// `search_catalog`: products matching `q` (full text and typo-tolerant title match, best
    /// first; all products by id without `q`), filtered by category and price range.
    public enum SearchCatalog: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "search_catalog"
        public static let pageSize = PageSize(default: 20, max: 100)
        public struct Request: Codable, Sendable, Equatable {
            public var q: String?
            public var category: String?
            /// Minor units, inclusive.
            public var minPrice: Int64?
            public var maxPrice: Int64?
            public var limit: Int?
            public var cursor: String?
            public init(
                q: String? = nil, category: String? = nil, minPrice: Int64? = nil, maxPrice: Int64? = nil,
                limit: Int? = nil, cursor: String? = nil
            ) {
                self.q = q
                self.category = category
                self.minPrice = minPrice
                self.maxPrice = maxPrice
                self.limit = limit
                self.cursor = cursor
            }
        }
        public typealias Reply = Page<CatalogItem>
    }

    /// `get_catalog_item`: one product in full; `not_found` when the catalogue has no such id.
    public enum GetCatalogItem: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "get_catalog_item"
        public struct Request: Codable, Sendable, Equatable {
            public var id: String
            public init(id: String) { self.id = id }
        }
        public typealias Reply = CatalogItem
    }
}
