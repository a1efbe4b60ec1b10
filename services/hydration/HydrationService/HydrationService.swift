import AuthContract
import Contract
import Foundation
import HydrationContract
import Logging
import PostgresNIO
import ServiceKit
import Store

/// The `hydration` service: TapWater's drink log, history, offline sync and daily plan.
public enum HydrationService {
    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "hydration",
        summary: "MDP worker for TapWater: drink log, history by local day, offline sync, daily plan",
        settings: WorkerHost.settings,
        probeHelp: "check that a hydration worker answers its health operation through the broker")

    /// The migrations shipped with the service (`Migrations/NNNN_name.sql`).
    public static func migrations() throws -> [Migration] {
        guard let url = Bundle.module.url(forResource: "Migrations", withExtension: nil) else {
            throw ServiceError(.internal, "the hydration service's Migrations folder is missing from its resources")
        }
        return try Migration.load(from: url)
    }

    /// The service's parts on one database.
    public struct Parts: Sendable {
        public let drinks: DrinkStore
        public let plans: PlanStore
        public let clock: any WallClock

        public init(client: PostgresClient, events: EventPublisher, clock: any WallClock, logger: Logger) {
            drinks = DrinkStore(client: client, logger: logger)
            plans = PlanStore(client: client, events: events, logger: logger)
            self.clock = clock
        }

        /// Forgets everything hydration keeps of `user` (after `auth.account_deleted`).
        public func forget(_ user: UUID, on connection: PostgresConnection) async throws {
            try await drinks.forget(user, on: connection)
            try await plans.forget(user, on: connection)
        }
    }

    /// The operation table: one line per operation.
    public static func register(_ parts: Parts, on router: inout OperationRouter) {
        let log = DrinkLog(drinks: parts.drinks, clock: parts.clock)
        let sync = SyncExchange(drinks: parts.drinks, clock: parts.clock)
        let history = HistoryReport(drinks: parts.drinks, plans: parts.plans)
        let book = PlanBook(plans: parts.plans, drinks: parts.drinks, clock: parts.clock)
        router.register(Hydration.LogDrink.self) { try await log.log($0, $1) }
        router.register(Hydration.ListDrinks.self) { try await log.list($0, $1) }
        router.register(Hydration.UpdateDrink.self) { try await log.update($0, $1) }
        router.register(Hydration.DeleteDrink.self) { try await log.delete($0, $1) }
        router.register(Hydration.Sync.self) { try await sync.sync($0, $1) }
        router.register(Hydration.History.self) { try await history.history($0, $1) }
        router.register(Hydration.GetPlan.self) { try await book.get($0, $1) }
        router.register(Hydration.SetPlan.self) { try await book.set($0, $1) }
        router.register(Hydration.ReminderText.self) { try await book.reminderText($0, $1) }
    }

    /// Its migrations, operations and the consumer that forgets deleted accounts.
    public static let definition = WorkerDefinition(service: .hydration, migrations: migrations) {
        router, resources in
        let publisher = try resources.publisher()
        let parts = Parts(
            client: resources.postgres, events: publisher, clock: resources.clock, logger: resources.logger)
        register(parts, on: &router)
        let forgetter = try resources.consumer(name: "hydration.auth", topics: [Auth.AccountDeleted.topic]) {
            event, connection in
            let deleted = try Wire.makeDecoder().decode(Auth.AccountDeleted.self, from: event.payload)
            guard let user = UUID(uuidString: deleted.userId) else { return }
            try await parts.forget(user, on: connection)
        }
        return [publisher.service, forgetter]
    }
}
