import CivicContract
import Contract
import Foundation
import Logging
import NotifyContract
import ServiceKit
import ServiceLifecycle
import Store

/// Hands decided new-bill pushes to notify, on every replica: a round decides the pushes of
/// devices whose bills have waited ``gather`` (one transaction), claims decided pushes with a
/// lease (one statement), then, with no transaction open, submits each to notify's `send` under
/// its derived id and marks it sent. A replica killed after notify took a push but before the
/// mark leaves the lease to run out; the next claim submits the same id with the same content,
/// and notify answers `created: false`: exactly one notification per device and bill.
public struct NewBillPusher: Service {
    let pushes: PushStore
    let submit: NotifyClient
    let clock: any WallClock
    let wake: AsyncStream<Void>
    let logger: Logger
    /// How long owed bills wait, so one import run's bills go in one decision.
    public var gather: TimeInterval = 60
    /// How long a claim holds a push before another replica may hand it over again.
    public var lease: TimeInterval = 60
    public var maxAttempts = 20
    public var pollInterval: Duration = .seconds(5)

    public init(pushes: PushStore, submit: NotifyClient, clock: any WallClock, wake: AsyncStream<Void>, logger: Logger) {
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
