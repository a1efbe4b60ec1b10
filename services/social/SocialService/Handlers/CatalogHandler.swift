import Contract
import ServiceKit
import SocialContract

/// The catalogue endpoints: search and one item, from the configured provider.
public struct CatalogHandler: Sendable {
    let provider: any CatalogProvider

    public init(provider: any CatalogProvider) { self.provider = provider }

    /// `search_catalog`.
    public func search(_ request: Social.SearchCatalog.Request, _ context: OperationContext) async throws
        -> Page<Social.CatalogItem>
    {
        _ = try context.requireActor()
        return try await provider.search(try CatalogQuery(request))
    }

    /// `get_catalog_item`.
    public func item(_ request: Social.GetCatalogItem.Request, _ context: OperationContext) async throws
        -> Social.CatalogItem
    {
        _ = try context.requireActor()
        guard let item = try await provider.item(request.id) else {
            throw ServiceError.notFound("no catalogue item \(request.id)")
        }
        return item
    }
}
