import Contract
import Foundation
import ServiceKit
import SocialContract
import Store

/// Friend requests, friends and blocks: the caller's side of the people graph.
public struct FriendHandler: Sendable {
    let transactions: Transactions
    let friends: FriendStore
    let people: PeopleStore
    let events: EventPublisher
    let clock: any WallClock

    public init(
        transactions: Transactions, friends: FriendStore, people: PeopleStore, events: EventPublisher,
        clock: any WallClock
    ) {
        self.transactions = transactions
        self.friends = friends
        self.people = people
        self.events = events
        self.clock = clock
    }

    /// Runs `body` in one transaction holding the lock of the pair `a`, `b`, with their state as
    /// `a` sees it (``FriendStore/pairState(_:_:in:)``); announces the events `body` appended after
    /// the commit.
    func changing<T: Sendable>(
        _ a: UUID, _ b: UUID, _ body: @Sendable (Transaction, PairState) async throws -> (T, [StoredEvent])
    ) async throws -> T {
        let (result, stored) = try await transactions.run { tx in
            try await body(tx, try await friends.pairState(a, b, in: tx))
        }
        for event in stored { events.announce(event) }
        return result
    }

    /// The other user of a request: a UUID, not the caller, known to the directory. Asking for
    /// something with oneself is a 400 where it would create something (a request, a block)
    /// and a 404 where it names something to answer or remove (there is never any).
    func other(_ ref: Social.UserRef, caller: UUID, creating: Bool = false) async throws -> (id: UUID, name: String) {
        guard let id = UUID(uuidString: ref.userId) else {
            throw ServiceError.invalidArgument("userId must be a UUID", field: "userId")
        }
        guard id != caller else {
            if creating { throw ServiceError.invalidArgument("userId is yourself", field: "userId") }
            throw Self.noSuchUser
        }
        guard let name = try await people.name(of: id) else { throw Self.noSuchUser }
        return (id, name)
    }

    static let noSuchUser = ServiceError(.notFound, "no such user")

    /// `send_friend_request`.
    public func send(_ request: Social.UserRef, _ context: OperationContext) async throws -> Social.RelationReply {
        let me = try context.userId()
        let (other, _) = try await other(request, caller: me, creating: true)
        let myName = try await people.name(of: me) ?? "Someone"
        let now = clock.now()
        let requestId = context.metadata.requestId
        let relation: Social.Relation = try await changing(me, other) { tx, state in
            switch FriendRequestRule.onSend(state) {
            case .hidden: throw Self.noSuchUser
            case .alreadyFriends: return (.friends, [])
            case .alreadyRequested: return (.requested, [])
            case .acceptTheirs:
                try await friends.befriend(me, other, now: now, in: tx)
                let event = try await events.append(
                    topic: Social.Topic.friendAccepted,
                    payload: Social.FriendAccepted(userId: other.lowercased, byUserId: me.lowercased, byName: myName),
                    requestId: requestId, in: tx)
                return (.friends, [event])
            case .newRequest:
                try await friends.request(from: me, to: other, now: now, in: tx)
                let event = try await events.append(
                    topic: Social.Topic.friendRequested,
                    payload: Social.FriendRequested(userId: other.lowercased, fromUserId: me.lowercased, fromName: myName),
                    requestId: requestId, in: tx)
                return (.requested, [event])
            }
        }
        return .init(userId: other.lowercased, relation: relation)
    }

    /// `accept_friend_request`.
    public func accept(_ request: Social.UserRef, _ context: OperationContext) async throws -> Social.RelationReply {
        let me = try context.userId()
        let (other, _) = try await other(request, caller: me)
        let myName = try await people.name(of: me) ?? "Someone"
        let now = clock.now()
        let requestId = context.metadata.requestId
        try await changing(me, other) { tx, state in
            if state.friends { return ((), []) }
            guard state.incoming, !state.blocked else {
                throw ServiceError(.notFound, "no friend request from this user")
            }
            try await friends.befriend(me, other, now: now, in: tx)
            let event = try await events.append(
                topic: Social.Topic.friendAccepted,
                payload: Social.FriendAccepted(userId: other.lowercased, byUserId: me.lowercased, byName: myName),
                requestId: requestId, in: tx)
            return ((), [event])
        }
        return .init(userId: other.lowercased, relation: .friends)
    }

    /// `decline_friend_request`.
    public func decline(_ request: Social.UserRef, _ context: OperationContext) async throws -> Empty {
        try await drop(request, context, change: "declined", notFound: "no friend request from this user") {
            me, other, tx in try await friends.dropRequest(from: other, to: me, in: tx)
        }
    }

    /// `cancel_friend_request`.
    public func cancel(_ request: Social.UserRef, _ context: OperationContext) async throws -> Empty {
        try await drop(request, context, change: "canceled", notFound: "no friend request to this user") {
            me, other, tx in try await friends.dropRequest(from: me, to: other, in: tx)
        }
    }

    /// `remove_friend`.
    public func remove(_ request: Social.UserRef, _ context: OperationContext) async throws -> Empty {
        try await drop(request, context, change: "removed", notFound: "not your friend") {
            me, other, tx in try await friends.unfriend(me, other, in: tx)
        }
    }

    /// `unblock_user`.
    public func unblock(_ request: Social.UserRef, _ context: OperationContext) async throws -> Empty {
        try await drop(request, context, change: "unblocked", notFound: "you have not blocked this user") {
            me, other, tx in try await friends.unblock(me, other, in: tx)
        }
    }

    /// `block_user`: idempotent.
    public func block(_ request: Social.UserRef, _ context: OperationContext) async throws -> Empty {
        let me = try context.userId()
        let (other, _) = try await other(request, caller: me, creating: true)
        let now = clock.now()
        let requestId = context.metadata.requestId
        try await changing(me, other) { tx, _ in
            try await friends.block(me, other, now: now, in: tx)
            let event = try await events.append(
                topic: Social.Topic.relationChanged,
                payload: Social.RelationChanged(userId: me.lowercased, otherUserId: other.lowercased, change: "blocked"),
                requestId: requestId, in: tx)
            return ((), [event])
        }
        return Empty()
    }

    /// A change that removes something between the caller and another user, with its event;
    /// `not_found` when `change` found nothing to remove.
    func drop(
        _ request: Social.UserRef, _ context: OperationContext, change: String, notFound: String,
        _ body: @escaping @Sendable (UUID, UUID, Transaction) async throws -> Bool
    ) async throws -> Empty {
        let me = try context.userId()
        let (other, _) = try await other(request, caller: me)
        let requestId = context.metadata.requestId
        try await changing(me, other) { tx, _ in
            guard try await body(me, other, tx) else {
                throw ServiceError(.notFound, notFound)
            }
            let event = try await events.append(
                topic: Social.Topic.relationChanged,
                payload: Social.RelationChanged(userId: me.lowercased, otherUserId: other.lowercased, change: change),
                requestId: requestId, in: tx)
            return ((), [event])
        }
        return Empty()
    }
}

extension UUID {
    /// The lower-case form every reply and event uses.
    var lowercased: String { uuidString.lowercased() }
}
