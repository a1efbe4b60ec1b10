import CivicContract
import Contract
import Foundation
import Logging
import NotifyContract
import ServiceKit
import ServiceLifecycle
import Store

/// The device subscriptions' operations: create, update and delete with the secret.
public struct SubscriptionDesk: Sendable {
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
        return .init(id: subscription.id, secret: secret, created: created, subscription: subscription)
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

/// Hands decided new-bill pushes to notify, on every replica: a round decides the pushes of
/// devices whose bills have waited ``gather`` (one transaction), claims decided pushes with a
/// lease (one statement), then, with no transaction open, submits each to notify's `send` under
/// its derived id and marks it sent. A replica killed after notify took a push but before the
/// mark leaves the lease to run out; the next claim submits the same id with the same content,
/// and notify answers `created: false`: exactly one notification per device and bill.
public struct NewBillPusher: Service {
    /// Submits a push to notify.
    public struct Submit: Sendable {
        let send: @Sendable (Notify.Send.Request) async throws -> Notify.Send.Reply
        public init(_ send: @escaping @Sendable (Notify.Send.Request) async throws -> Notify.Send.Reply) {
            self.send = send
        }

        /// notify's `send` over the broker, as a service (no actor).
        public static func overBus(_ bus: BusClient, timeout: Duration = .seconds(5)) -> Submit {
            Submit { request in
                try await bus.call(
                    Notify.Send.self, request,
                    metadata: RequestMetadata(requestId: "civic-push-\(request.notificationId)"), timeout: timeout)
            }
        }
    }

    let pushes: PushStore
    let submit: Submit
    let clock: any WallClock
    let wake: AsyncStream<Void>
    let logger: Logger
    /// How long owed bills wait, so one import run's bills go in one decision.
    public var gather: TimeInterval = 60
    /// How long a claim holds a push before another replica may hand it over again.
    public var lease: TimeInterval = 60
    public var maxAttempts = 20
    public var pollInterval: Duration = .seconds(5)

    public init(pushes: PushStore, submit: Submit, clock: any WallClock, wake: AsyncStream<Void>, logger: Logger) {
        self.pushes = pushes
        self.submit = submit
        self.clock = clock
        self.wake = wake
        self.logger = logger
    }

    public func run() async throws {
        await JobLoop(wake: wake, pollInterval: pollInterval, logger: logger, failure: "new-bill push round failed").run {
            try await round() > 0
        }
    }

    /// One round; how many pushes were handed over.
    @discardableResult
    public func round() async throws -> Int {
        _ = try await pushes.decide(now: clock.now(), gather: gather)
        let claimed = try await pushes.claim(now: clock.now(), lease: lease, maxAttempts: maxAttempts)
        var handed = 0
        for push in claimed {
            do {
                _ = try await submit.send(push.request)
                try await pushes.sent(push.id, now: clock.now())
                handed += 1
            } catch let error as ServiceError where error.code == .conflict {
                // notify holds this id already (a renewed token changed the content): it went out.
                try await pushes.sent(push.id, now: clock.now())
            } catch {
                let delay = min(600, 2 * pow(2, Double(min(push.attempts, 9))))
                let reason = SafeErrorDescription.of(error)
                try await pushes.failed(push.id, reason: reason, retryAt: clock.now().addingTimeInterval(delay))
                logger.warning(
                    "new-bill push not handed to notify",
                    metadata: ["pushId": "\(push.id)", "attempt": "\(push.attempts)", "error": "\(reason)"])
            }
        }
        return handed
    }
}
