import AuthContract
import Contract
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import SocialContract
import SocialService
import Store
import TestSupport
import ZeroMQ

/// The social service's operations against the real PostgreSQL of `DATABASE_URL` (schemas
/// `social` and `events`, migrated), called through its `OperationRouter` with the wire's frames,
/// as the broker would deliver them. Users come into the directory through auth's real event
/// payloads, applied as social's consumer applies them. Every test uses users of its own.
struct SocialDatabase: Sendable {
    let client: PostgresClient
    let clock: ManualClock
    let parts: SocialService.Parts
    let router: OperationRouter

    static let logger: Logger = {
        var logger = Logger(label: "social-test")
        logger.logLevel = .critical
        return logger
    }()

    /// A context nobody runs: announced events queue in memory (consumers would read the log).
    static let context = Context()

    /// Runs `body` with a migrated database, the clock at 2026-11-24T12:00:00Z.
    static func with(_ body: @Sendable (SocialDatabase) async throws -> Void) async throws {
        try await PostgresFixture.withClient(maximumConnections: 40, logger: logger) { client in
            let clock = ManualClock(Date(timeIntervalSince1970: 1_795_521_600))
            let log = EventLog(client: client, clock: clock, logger: logger)
            try await log.migrate()
            try await Migrator(client: client, schema: "social", logger: logger).migrate(SocialService.migrations())
            let publisher = EventPublisher(log: log, producer: .social, context: context, endpoint: "tcp://127.0.0.1:1")
            let parts = SocialService.Parts(
                people: PeopleStore(client: client, logger: logger), friends: FriendStore(client: client, logger: logger),
                catalog: SandboxCatalogStore(client: client, logger: logger),
                favourites: FavouriteStore(client: client, logger: logger),
                contacts: ContactStore(client: client, logger: logger),
                addresses: AddressStore(client: client, logger: logger), transactions: Transactions(client, logger: logger),
                events: publisher, clock: clock)
            var router = OperationRouter(service: .social, logger: logger, clock: clock)
            SocialService.register(parts, on: &router)
            try await body(SocialDatabase(client: client, clock: clock, parts: parts, router: router))
        }
    }

    /// Delivers one of auth's events to social as its consumer does: in a transaction.
    func deliver<Payload: Encodable>(_ topic: String, _ payload: Payload) async throws {
        let event = StoredEvent(
            seq: 0, xid: 0, id: UUID(), topic: topic, producer: "auth",
            payload: try Wire.makeEncoder().encode(payload), requestId: nil, createdAt: clock.now())
        try await apply(event)
    }

    /// Applies `event` as social's consumer does: in a transaction.
    func apply(_ event: StoredEvent) async throws {
        let consumer = SocialEventConsumer(people: parts.people, contacts: parts.contacts, clock: parts.clock)
        try await client.withTransaction(logger: Self.logger) { connection in
            try await consumer.handle(event, in: Transaction(connection: connection, logger: Self.logger))
        }
    }

    /// A new user in the directory, as auth announces a registration.
    func user(_ username: String? = nil, displayName: String? = nil, email: String? = nil, phone: String? = nil)
        async throws -> UUID
    {
        let id = UUID()
        let name = username ?? "user_\(id.uuidString.prefix(8).lowercased())"
        try await deliver(
            Auth.ProfileChanged.topic,
            Auth.ProfileChanged(
                userId: id.uuidString.lowercased(), username: name, displayName: displayName, email: email,
                phone: phone))
        return id
    }

    /// Calls `operation` as `user` (nil: as another service) through the router.
    func call<Op: ServiceOperation>(_ operation: Op.Type, _ request: Op.Request, as user: UUID?) async throws
        -> Op.Reply
    {
        let metadata = RequestMetadata(
            requestId: "test-\(UUID().uuidString.prefix(8))",
            actor: user.map { Actor(userId: $0.uuidString.lowercased(), roles: ["user"]) })
        let frames = try Wire.encodeRequest(operation: Op.name, metadata: metadata, payload: request)
        return try Wire.decodeReply(Op.Reply.self, from: await router.handle(frames))
    }

    /// The error `operation` answers, or nil when it succeeds.
    func error<Op: ServiceOperation>(_ operation: Op.Type, _ request: Op.Request, as user: UUID?) async -> ServiceError?
    {
        do {
            _ = try await call(operation, request, as: user)
            return nil
        } catch let error as ServiceError {
            return error
        } catch {
            return ServiceError(.internal, "\(error)")
        }
    }

    /// How many rows `sql` counts.
    func count(_ sql: PostgresQuery) async throws -> Int {
        let rows = try await client.query(sql, logger: Self.logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    /// The topics of social's events about `user` (as actor or addressee), in log order.
    func events(about user: UUID) async throws -> [String] {
        let id = user.uuidString.lowercased()
        let rows = try await client.query(
            """
            SELECT topic FROM events.log WHERE producer = 'social'
              AND (payload->>'userId' = \(id) OR payload->>'fromUserId' = \(id) OR payload->>'byUserId' = \(id)
                   OR payload->>'otherUserId' = \(id))
            ORDER BY seq
            """, logger: Self.logger)
        var topics: [String] = []
        for try await topic in rows.decode(String.self) { topics.append(topic) }
        return topics
    }
}

extension UUID {
    var ref: Social.UserRef { Social.UserRef(userId: uuidString.lowercased()) }
}

extension ServiceError {
    /// The field an `invalid_argument` names.
    var field: String? {
        guard case .string(let field) = details?["field"] else { return nil }
        return field
    }
}
