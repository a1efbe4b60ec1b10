import AuthContract
import Contract
import Foundation
import Store

/// Forgets everything hydration keeps of an account deleted in auth (`auth.account_deleted`):
/// drinks, change counter, plan and goals, in the transaction that records the event as handled.
public struct AccountDeletedConsumer: Sendable {
    let drinks: DrinkStore
    let plans: PlanStore

    public init(drinks: DrinkStore, plans: PlanStore) {
        self.drinks = drinks
        self.plans = plans
    }

    /// The consumer `hydration.auth`'s handler.
    public func handle(_ event: StoredEvent, in tx: Transaction) async throws {
        let deleted = try Wire.makeDecoder().decode(Auth.AccountDeleted.self, from: event.payload)
        guard let user = UUID(uuidString: deleted.userId) else { return }
        try await forget(user, in: tx)
    }

    /// Forgets `user`'s drinks, plan and goals.
    public func forget(_ user: UUID, in tx: Transaction) async throws {
        try await drinks.forget(user, in: tx)
        try await plans.forget(user, in: tx)
    }
}
