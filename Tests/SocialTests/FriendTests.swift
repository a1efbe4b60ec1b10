import AuthContract
import Contract
import Foundation
import SocialContract
import Testing

@Suite("social: friend requests, friends, blocks and deleted accounts (PostgreSQL)")
struct FriendTests {
    @Test("request, list both ways, accept: friends on both sides, each step an event for the other person")
    func requestAndAccept() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user(displayName: "Ann Lund")
            let bo = try await db.user()
            let sent = try await db.call(Social.SendFriendRequest.self, bo.ref, as: ann)
            #expect(sent.relation == .requested)
            let outgoing = try await db.call(Social.ListFriendRequests.self, .init(direction: .outgoing), as: ann)
            #expect(outgoing.items.map(\.user.userId) == [bo.uuidString.lowercased()])
            let incoming = try await db.call(Social.ListFriendRequests.self, .init(direction: .incoming), as: bo)
            #expect(incoming.items.map(\.user.displayName) == ["Ann Lund"])
            #expect(incoming.items.first?.user.relation == .incoming)
            let accepted = try await db.call(Social.AcceptFriendRequest.self, ann.ref, as: bo)
            #expect(accepted.relation == .friends)
            let annFriends = try await db.call(Social.ListFriends.self, .init(), as: ann)
            let boFriends = try await db.call(Social.ListFriends.self, .init(), as: bo)
            #expect(annFriends.items.map(\.user.userId) == [bo.uuidString.lowercased()])
            #expect(boFriends.items.map(\.user.userId) == [ann.uuidString.lowercased()])
            #expect(try await db.call(Social.ListFriendRequests.self, .init(direction: .incoming), as: bo).items.isEmpty)
            #expect(
                try await db.events(about: ann) == [Social.Topic.friendRequested, Social.Topic.friendAccepted])
            // A second accept is the same accept; a request to a friend answers "friends".
            #expect(try await db.call(Social.AcceptFriendRequest.self, ann.ref, as: bo).relation == .friends)
            #expect(try await db.call(Social.SendFriendRequest.self, ann.ref, as: bo).relation == .friends)
            #expect(try await db.events(about: ann).count == 2)
        }
    }

    @Test("40 concurrent identical requests make one request and one notice")
    func concurrentIdenticalRequests() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            let bo = try await db.user()
            let relations = try await withThrowingTaskGroup(of: Social.Relation.self) { group in
                for _ in 0..<40 {
                    group.addTask { try await db.call(Social.SendFriendRequest.self, bo.ref, as: ann).relation }
                }
                return try await group.reduce(into: [Social.Relation]()) { $0.append($1) }
            }
            #expect(relations.count == 40 && relations.allSatisfy { $0 == .requested })
            #expect(
                try await db.count("SELECT count(*) FROM social.friend_requests WHERE from_user = \(ann)") == 1)
            #expect(try await db.events(about: bo) == [Social.Topic.friendRequested])
        }
    }

    @Test("two users asking each other at the same moment become friends once, with no request left")
    func crossingRequests() async throws {
        try await SocialDatabase.with { db in
            for _ in 0..<10 {
                let ann = try await db.user()
                let bo = try await db.user()
                async let one = db.call(Social.SendFriendRequest.self, bo.ref, as: ann)
                async let two = db.call(Social.SendFriendRequest.self, ann.ref, as: bo)
                let relations = [try await one.relation, try await two.relation]
                #expect(relations.contains(.friends))
                #expect(
                    try await db.count(
                        "SELECT count(*) FROM social.friendships WHERE user_id = \(ann) OR user_id = \(bo)") == 2)
                #expect(
                    try await db.count(
                        "SELECT count(*) FROM social.friend_requests WHERE from_user IN (\(ann), \(bo))") == 0)
            }
        }
    }

    @Test("decline, cancel and remove: each removes what it names, and 404 when there is nothing")
    func declineCancelRemove() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            let bo = try await db.user()
            _ = try await db.call(Social.SendFriendRequest.self, bo.ref, as: ann)
            _ = try await db.call(Social.DeclineFriendRequest.self, ann.ref, as: bo)
            #expect(await db.error(Social.DeclineFriendRequest.self, ann.ref, as: bo)?.code == .notFound)
            #expect(await db.error(Social.AcceptFriendRequest.self, ann.ref, as: bo)?.code == .notFound)
            _ = try await db.call(Social.SendFriendRequest.self, bo.ref, as: ann)
            _ = try await db.call(Social.CancelFriendRequest.self, bo.ref, as: ann)
            #expect(try await db.call(Social.ListFriendRequests.self, .init(direction: .incoming), as: bo).items.isEmpty)
            _ = try await db.call(Social.SendFriendRequest.self, bo.ref, as: ann)
            _ = try await db.call(Social.AcceptFriendRequest.self, ann.ref, as: bo)
            _ = try await db.call(Social.RemoveFriend.self, ann.ref, as: bo)
            #expect(try await db.call(Social.ListFriends.self, .init(), as: ann).items.isEmpty)
            #expect(await db.error(Social.RemoveFriend.self, ann.ref, as: bo)?.code == .notFound)
        }
    }

    @Test("bad user ids: not a UUID and yourself are 400 naming userId; an unknown user is 404")
    func badIds() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            let bad = await db.error(Social.SendFriendRequest.self, .init(userId: "bo"), as: ann)
            #expect(bad?.code == .invalidArgument && bad?.field == "userId")
            let me = await db.error(Social.SendFriendRequest.self, ann.ref, as: ann)
            #expect(me?.code == .invalidArgument && me?.field == "userId")
            #expect(await db.error(Social.SendFriendRequest.self, UUID().ref, as: ann)?.code == .notFound)
            #expect(await db.error(Social.ListFriends.self, .init(), as: nil)?.code == .unauthenticated)
        }
    }

    @Test("a block ends the friendship and requests, and hides each from the other both ways")
    func block() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            let bo = try await db.user()
            _ = try await db.call(Social.SendFriendRequest.self, bo.ref, as: ann)
            _ = try await db.call(Social.AcceptFriendRequest.self, ann.ref, as: bo)
            _ = try await db.call(Social.BlockUser.self, ann.ref, as: bo)
            _ = try await db.call(Social.BlockUser.self, ann.ref, as: bo)
            #expect(try await db.call(Social.ListFriends.self, .init(), as: ann).items.isEmpty)
            // Neither can ask the other; the blocked one learns nothing a stranger would not.
            #expect(await db.error(Social.SendFriendRequest.self, bo.ref, as: ann)?.code == .notFound)
            #expect(await db.error(Social.SendFriendRequest.self, ann.ref, as: bo)?.code == .notFound)
            #expect(
                await db.error(Social.SendFriendRequest.self, bo.ref, as: ann)?.message
                    == (await db.error(Social.SendFriendRequest.self, UUID().ref, as: ann))?.message)
            _ = try await db.call(Social.UnblockUser.self, ann.ref, as: bo)
            #expect(try await db.call(Social.SendFriendRequest.self, bo.ref, as: ann).relation == .requested)
        }
    }

    @Test("friends page by keyset cursor: every friend once, newest first")
    func paging() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            var expected: [String] = []
            for _ in 0..<7 {
                let friend = try await db.user()
                _ = try await db.call(Social.SendFriendRequest.self, friend.ref, as: ann)
                _ = try await db.call(Social.AcceptFriendRequest.self, ann.ref, as: friend)
                expected.insert(friend.uuidString.lowercased(), at: 0)
                db.clock.advance(by: 1)
            }
            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await db.call(Social.ListFriends.self, .init(cursor: cursor, limit: 3), as: ann)
                seen += page.items.map(\.user.userId)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen == expected)
            let bad = await db.error(Social.ListFriends.self, .init(cursor: "x"), as: ann)
            #expect(bad?.field == "cursor")
            #expect(await db.error(Social.ListFriends.self, .init(limit: 0), as: ann)?.field == "limit")
        }
    }

    @Test("auth.account_deleted removes the account's friendships, requests and blocks on both sides")
    func accountDeleted() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            let bo = try await db.user()
            let cy = try await db.user()
            _ = try await db.call(Social.SendFriendRequest.self, bo.ref, as: ann)
            _ = try await db.call(Social.AcceptFriendRequest.self, ann.ref, as: bo)
            _ = try await db.call(Social.SendFriendRequest.self, cy.ref, as: ann)
            _ = try await db.call(Social.BlockUser.self, ann.ref, as: cy)
            try await db.deliver(Auth.AccountDeleted.topic, Auth.AccountDeleted(userId: ann.uuidString.lowercased()))
            #expect(try await db.call(Social.ListFriends.self, .init(), as: bo).items.isEmpty)
            #expect(
                try await db.count("SELECT count(*) FROM social.friendships WHERE user_id = \(ann) OR friend_id = \(ann)")
                    == 0)
            #expect(
                try await db.count("SELECT count(*) FROM social.friend_requests WHERE from_user = \(ann) OR to_user = \(ann)")
                    == 0)
            #expect(try await db.count("SELECT count(*) FROM social.blocks WHERE blocker = \(cy) OR blocked = \(cy)") == 0)
            #expect(try await db.count("SELECT count(*) FROM social.people WHERE user_id = \(ann)") == 0)
            #expect(await db.error(Social.SendFriendRequest.self, ann.ref, as: bo)?.code == .notFound)
        }
    }
}
