import AuthContract
import Contract
import Foundation
import HydrationContract
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
        /// Forgets deleted accounts (the consumer `hydration.auth`).
        public let accounts: AccountDeletedConsumer

        public init(drinks: DrinkStore, plans: PlanStore, clock: any WallClock) {
            self.drinks = drinks
            self.plans = plans
            self.clock = clock
            accounts = AccountDeletedConsumer(drinks: drinks, plans: plans)
        }
    }

    /// The operation table: one line per operation.
    public static func register(_ parts: Parts, on router: inout OperationRouter) {
        let drinks = DrinkHandler(drinks: parts.drinks, clock: parts.clock)
        let sync = SyncHandler(drinks: parts.drinks, clock: parts.clock)
        let history = HistoryHandler(drinks: parts.drinks, plans: parts.plans)
        let plans = PlanHandler(plans: parts.plans, drinks: parts.drinks, clock: parts.clock)
        router.register(Hydration.LogDrink.self) { try await drinks.log($0, $1) }
        router.register(Hydration.ListDrinks.self) { try await drinks.list($0, $1) }
        router.register(Hydration.UpdateDrink.self) { try await drinks.update($0, $1) }
        router.register(Hydration.DeleteDrink.self) { try await drinks.delete($0, $1) }
        router.register(Hydration.Sync.self) { try await sync.sync($0, $1) }
        router.register(Hydration.History.self) { try await history.history($0, $1) }
        router.register(Hydration.GetPlan.self) { try await plans.get($0, $1) }
        router.register(Hydration.SetPlan.self) { try await plans.set($0, $1) }
        router.register(Hydration.ReminderText.self) { try await plans.reminderText($0, $1) }
    }

    /// Its migrations, operations and the consumer that forgets deleted accounts.
    public static let definition = WorkerDefinition(service: .hydration, migrations: migrations) {
        router, resources in
        let publisher = try resources.publisher()
        let parts = Parts(
            drinks: DrinkStore(client: resources.database.client, logger: resources.logger),
            plans: PlanStore(client: resources.database.client, events: publisher, logger: resources.logger),
            clock: resources.clock)
        register(parts, on: &router)
        let forgetter = try resources.consumer(
            name: "hydration.auth", topics: [Auth.AccountDeleted.topic], inTransaction: parts.accounts.handle(_:in:))
        return [publisher.service, forgetter]
    }
}
