import Contract
import Foundation
import SocialContract

/// A catalogue search, checked: each bad field is a 400 that names it.
public struct CatalogQuery: Sendable, Equatable {
    /// The words searched for, trimmed; nil lists everything.
    public var text: String?
    public var category: String?
    public var minPrice: Int64?
    public var maxPrice: Int64?
    public var limit: Int
    /// Where the page starts: the last item's score and id.
    public var after: KeysetCursor?

    /// The longest search text, in Unicode scalars (as JSON Schema counts `maxLength`).
    public static let maxText = 200

    public init(_ request: Social.SearchCatalog.Request) throws(ServiceError) {
        let trimmed = request.q?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let trimmed, trimmed.unicodeScalars.count > Self.maxText {
            throw .invalidArgument("q is at most \(Self.maxText) characters", field: "q")
        }
        if let trimmed, trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw .invalidArgument("q must not contain control characters", field: "q")
        }
        text = trimmed?.isEmpty == false ? trimmed : nil
        if let category = request.category {
            guard (1...40).contains(category.unicodeScalars.count),
                category.allSatisfy({ $0.isASCII && ($0.isLowercase || $0 == "-" || $0 == "_") })
            else {
                throw .invalidArgument("category is 1 to 40 lower-case letters, - or _", field: "category")
            }
        }
        category = request.category
        for (value, field) in [(request.minPrice, "minPrice"), (request.maxPrice, "maxPrice")] {
            if let value, value < 0 { throw .invalidArgument("\(field) is not negative", field: field) }
        }
        if let low = request.minPrice, let high = request.maxPrice, high < low {
            throw .invalidArgument("maxPrice is not below minPrice", field: "maxPrice")
        }
        minPrice = request.minPrice
        maxPrice = request.maxPrice
        limit = try Social.SearchCatalog.pageSize.limit(request.limit)
        after = try KeysetCursor.parse(request.cursor)
    }
}
