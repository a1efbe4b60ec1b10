import Contract
import Foundation
import ServiceKit
import SocialContract

/// The caller's friends and pending requests, by keyset pages.
public struct FriendListHandler: Sendable {
    let friends: FriendStore

    public init(friends: FriendStore) { self.friends = friends }

    /// `list_friends`.
    public func friends(_ request: PageRequest, _ context: OperationContext) async throws -> Page<Social.Friend> {
        let me = try context.userId()
        let limit = try Social.ListFriends.pageSize.limit(request.limit)
        let rows = try await friends.friends(of: me, after: try KeysetCursor.parse(request.cursor), limit: limit + 1)
        return Self.page(rows, limit: limit) { row in
            Social.Friend(user: row.person(.friends), since: row.micros / 1_000)
        }
    }

    /// `list_friend_requests`.
    public func requests(_ request: Social.ListFriendRequests.Request, _ context: OperationContext) async throws
        -> Page<Social.FriendRequest>
    {
        let me = try context.userId()
        let limit = try Social.ListFriendRequests.pageSize.limit(request.limit)
        let rows = try await friends.requests(
            of: me, request.direction, after: try KeysetCursor.parse(request.cursor), limit: limit + 1)
        let relation: Social.Relation = request.direction == .incoming ? .incoming : .requested
        return Self.page(rows, limit: limit) { row in
            Social.FriendRequest(user: row.person(relation), createdAt: row.micros / 1_000)
        }
    }

    static func page<Item>(_ rows: [FriendStore.ListedPerson], limit: Int, _ item: (FriendStore.ListedPerson) -> Item)
        -> Page<Item>
    {
        let kept = rows.prefix(limit)
        let next = rows.count > limit ? kept.last.map { KeysetCursor.text(micros: $0.micros, id: $0.id.uuidString) } : nil
        return Page(items: kept.map(item), nextCursor: next)
    }
}

extension FriendStore.ListedPerson {
    func person(_ relation: Social.Relation) -> Social.Person {
        Social.Person(userId: id.lowercased, username: username, displayName: displayName, relation: relation)
    }
}
