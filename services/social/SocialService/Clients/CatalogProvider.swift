import Contract
import SocialContract

/// Where products come from: the sandbox catalogue in PostgreSQL (the default, offline), or an
/// outside source. Chosen by the `CATALOG_PROVIDER` setting.
public protocol CatalogProvider: Sendable {
    /// The provider's name, as the setting spells it.
    var name: String { get }
    /// One page of products matching `query`.
    func search(_ query: CatalogQuery) async throws -> Page<Social.CatalogItem>
    /// One product, or nil when there is no such id.
    func item(_ id: String) async throws -> Social.CatalogItem?
    /// The products of `ids` that the catalogue has, by id (one call for a whole list).
    func items(_ ids: [String]) async throws -> [String: Social.CatalogItem]
}
