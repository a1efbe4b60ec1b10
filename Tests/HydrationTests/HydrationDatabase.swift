import Contract
import Foundation
import HydrationContract
import HydrationService
import Logging
import PostgresNIO
import ServiceKit
import Store
import TestSupport
import ZeroMQ

/// The hydration service's operations against the real PostgreSQL of `DATABASE_URL` (schemas
/// `hydration` and `events`, migrated), called through its `OperationRouter` with the wire's
/// frames, as the broker would deliver them. Every test uses users of its own.
struct HydrationDatabase: Sendable {
    let client: PostgresClient
    let clock: ManualClock
    let parts: HydrationService.Parts
    let router: OperationRouter

    static let logger: Logger = {
        var logger = Logger(label: "hydration-test")
        logger.logLevel = .critical
        return logger
    }()

    /// A context nobody runs: announced events queue in memory (consumers would read the log).
    static let context = Context()

    /// Runs `body` with a migrated database, the clock at 2026-11-24T12:00:00Z.
    static func with(_ body: @Sendable (HydrationDatabase) async throws -> Void) async throws {
        try await PostgresFixture.withClient(maximumConnections: 20, logger: logger) { client in
            let clock = ManualClock(Date(timeIntervalSince1970: 1_795_521_600))
            let log = EventLog(client: client, clock: clock, logger: logger)
            try await log.migrate()
            try await Migrator(client: client, schema: "hydration", logger: logger)
                .migrate(HydrationService.migrations())
            let publisher = EventPublisher(
                log: log, producer: .hydration, context: context, endpoint: "tcp://127.0.0.1:1")
            let parts = HydrationService.Parts(
                drinks: DrinkStore(client: client, logger: logger),
                plans: PlanStore(client: client, events: publisher, logger: logger), clock: clock)
            var router = OperationRouter(service: .hydration, logger: logger, clock: clock)
            HydrationService.register(parts, on: &router)
            try await body(HydrationDatabase(client: client, clock: clock, parts: parts, router: router))
        }
    }

    /// Forgets `user` as the consumer of `auth.account_deleted` does, in a transaction of its own.
    func forget(_ user: UUID) async throws {
        try await Transactions(client, logger: Self.logger).run { try await parts.accounts.forget(user, in: $0) }
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

    /// The payloads of the `hydration.plan_changed` events logged for `user`.
    func planEvents(of user: UUID) async throws -> [Hydration.PlanChanged] {
        let rows = try await client.query(
            """
            SELECT payload::text FROM events.log
            WHERE topic = \(Hydration.PlanChanged.topic) AND payload->>'userId' = \(user.uuidString.lowercased())
            ORDER BY seq
            """, logger: Self.logger)
        var events: [Hydration.PlanChanged] = []
        for try await text in rows.decode(String.self) {
            events.append(try Wire.makeDecoder().decode(Hydration.PlanChanged.self, from: Data(text.utf8)))
        }
        return events
    }
}

extension ServiceError {
    /// The field an `invalid_argument` names.
    var field: String? {
        guard case .string(let field) = details?["field"] else { return nil }
        return field
    }
}
