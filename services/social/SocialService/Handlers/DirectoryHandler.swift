import Contract
import Foundation
import ServiceKit
import SocialContract

/// The directory: finding people, and each user's say in who may find them.
public struct DirectoryHandler: Sendable {
    let people: PeopleStore

    public init(people: PeopleStore) { self.people = people }

    /// `search_users`.
    public func search(_ request: Social.SearchUsers.Request, _ context: OperationContext) async throws
        -> Page<Social.Person>
    {
        let me = try context.userId()
        let query = try DirectoryQuery(request.q)
        let limit = try Social.SearchUsers.pageSize.limit(request.limit)
        let hits = try await people.search(
            query, caller: me, after: try KeysetCursor.parse(request.cursor), limit: limit + 1)
        let kept = hits.prefix(limit)
        let next = hits.count > limit ? kept.last.map { KeysetCursor.text(micros: $0.score, id: $0.id.uuidString) } : nil
        return Page(items: kept.map(\.person), nextCursor: next)
    }

    /// `get_privacy`.
    public func privacy(_ request: Empty, _ context: OperationContext) async throws -> Social.Privacy {
        try await people.privacy(of: try context.userId())
    }

    /// `set_privacy`: `not_found` until the directory knows the caller (moments after sign-up).
    public func setPrivacy(_ request: Social.Privacy, _ context: OperationContext) async throws -> Social.Privacy {
        guard try await people.setPrivacy(request, of: try context.userId()) else {
            throw ServiceError(.notFound, "the directory does not know your account yet; try again shortly")
        }
        return request
    }
}
