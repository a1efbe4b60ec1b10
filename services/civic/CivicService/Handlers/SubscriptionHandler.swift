import CivicContract
import Contract
import Foundation
import ServiceKit
import Store

/// The device subscriptions' operations: create, update and delete with the secret.
public struct SubscriptionHandler: Sendable {
    let subscriptions: SubscriptionStore
    let clock: any WallClock

    public init(subscriptions: SubscriptionStore, clock: any WallClock) {
        self.subscriptions = subscriptions
        self.clock = clock
    }

    public func create(_ request: Civic.CreateSubscription.Request, _ context: OperationContext) async throws
        -> Civic.CreateSubscription.Reply
    {
        let device = SubscriptionStore.Device(
            token: try SubscriptionRules.token(request.deviceToken), platform: try SubscriptionRules.platform(request.platform),
            app: try SubscriptionRules.app(request.app),
            apnsEnvironment: try SubscriptionRules.apnsEnvironment(request.apnsEnvironment))
        let filter = try SubscriptionRules.filter(jurisdictions: request.jurisdictions, subjects: request.subjects)
        let secret = SubscriptionRules.newSecret()
        let (subscription, created) = try await subscriptions.upsert(
            device, filter: filter, secretHash: SubscriptionRules.hash(secret), now: clock.now())
        return .init(.init(id: subscription.id, secret: secret, subscription: subscription), created: created)
    }

    public func update(_ request: Civic.UpdateSubscription.Request, _ context: OperationContext) async throws
        -> Civic.Subscription
    {
        let filter = try SubscriptionRules.filter(jurisdictions: request.jurisdictions, subjects: request.subjects)
        let token = try request.deviceToken.map { token throws(ServiceError) in try SubscriptionRules.token(token) }
        let environment = try request.apnsEnvironment.map { value throws(ServiceError) in
            try SubscriptionRules.apnsEnvironment(value)
        }
        guard let id = UUID(uuidString: request.id),
            let subscription = try await subscriptions.update(
                id, secretHash: SubscriptionRules.hash(request.secret), filter: filter, token: token,
                apnsEnvironment: environment, now: clock.now())
        else { throw Self.unknown }
        return subscription
    }

    public func delete(_ request: Civic.SubscriptionRef, _ context: OperationContext) async throws -> Empty {
        guard let id = UUID(uuidString: request.id),
            try await subscriptions.delete(id, secretHash: SubscriptionRules.hash(request.secret))
        else { throw Self.unknown }
        return Empty()
    }

    /// An unknown id and a wrong secret answer alike, so ids cannot be probed.
    static let unknown = ServiceError.notFound("no subscription with that id and secret")
}
