import Contract
import Foundation
import Logging
import ServiceLifecycle
import Store

/// Claims delivery jobs (`SKIP LOCKED`, so replicas share the work and each job runs once) and
/// sends them: e-mail over SMTP sessions, push to every device of the user.
public struct Deliverer: Service {
    /// Where notifications and jobs are.
    public let store: NotificationStore
    /// Auth lookups.
    public let directory: any Directory
    /// The SMTP relay (nil: e-mail is dead-lettered with a reason).
    public let smtp: SMTPClient?
    /// The sender address.
    public let mailFrom: String
    /// APNs, for `ios` devices.
    public let apns: (any PushProvider)?
    /// FCM, for `android` and `web` devices.
    public let fcm: (any PushProvider)?
    /// Jobs claimed at once.
    public var batch = 64
    /// SMTP sessions used in parallel for one batch.
    public var smtpConnections = 4
    /// How long a claim holds a job, in seconds.
    public var lease: TimeInterval = 120
    /// How often an idle deliverer looks for due jobs.
    public var pollInterval: Duration = .milliseconds(200)
    let wake: AsyncStream<Void>
    let logger: Logger

    /// Creates a deliverer; `wake` nudges it to look now.
    public init(
        store: NotificationStore, directory: any Directory, smtp: SMTPClient?, mailFrom: String,
        apns: (any PushProvider)?, fcm: (any PushProvider)?, wake: AsyncStream<Void>, logger: Logger
    ) {
        self.store = store
        self.directory = directory
        self.smtp = smtp
        self.mailFrom = mailFrom
        self.apns = apns
        self.fcm = fcm
        self.wake = wake
        self.logger = logger
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                let (ticks, tick) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
                group.addTask {
                    for await _ in wake { tick.yield() }
                }
                group.addTask {
                    while !Task.isCancelled {
                        tick.yield()
                        try? await Task.sleep(for: pollInterval)
                    }
                    tick.finish()
                }
                for await _ in ticks {
                    if Task.isShuttingDownGracefully || Task.isCancelled { break }
                    do {
                        while try await runOnce() == batch, !Task.isShuttingDownGracefully {}
                    } catch {
                        logger.error("delivery round failed", metadata: ["error": "\(error)"])
                    }
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
        }
    }

    /// Claims and delivers one batch; returns how many jobs it claimed.
    @discardableResult
    public func runOnce() async throws -> Int {
        let jobs = try await store.queue.claim(limit: batch, lease: lease)
        if jobs.isEmpty { return 0 }
        let mails = jobs.filter { $0.kind == Notify.Channel.email }
        let pushes = jobs.filter { $0.kind != Notify.Channel.email }
        await withTaskGroup(of: Void.self) { group in
            let lanes = max(1, min(smtpConnections, mails.count))
            for lane in 0..<lanes {
                let share = stride(from: lane, to: mails.count, by: lanes).map { mails[$0] }
                if !share.isEmpty { group.addTask { await deliverMails(share) } }
            }
            for job in pushes { group.addTask { await deliverPush(job) } }
        }
        return jobs.count
    }

    func finish(
        _ job: Job, _ notification: UUID, userId: UUID?, channel: String, result: Result<String?, DeliveryFailure>
    )
        async
    {
        do {
            switch result {
            case .success(let target):
                try await store.queue.complete(job)
                try await store.log(
                    notification, userId: userId, channel: channel, target: target, outcome: "sent", detail: nil)
            case .failure(let failure):
                let outcome = try await store.queue.fail(job, reason: failure.reason, permanent: failure.permanent)
                let kind: String
                if case .dead = outcome { kind = "dead" } else { kind = "retry" }
                try await store.log(
                    notification, userId: userId, channel: channel, outcome: kind, detail: failure.reason)
            }
        } catch {
            logger.warning("could not record a delivery", metadata: ["jobId": "\(job.id)", "error": "\(error)"])
        }
    }

    func skip(_ job: Job, _ notification: NotificationStore.Stored, channel: String, reason: String) async {
        do {
            try await store.queue.complete(job)
            try await store.log(
                notification.id, userId: notification.userId, channel: channel, outcome: "skipped", detail: reason)
        } catch {
            logger.warning(
                "could not record a skipped delivery", metadata: ["jobId": "\(job.id)", "error": "\(error)"])
        }
    }
}

/// Why an attempt failed, and whether retrying can help.
struct DeliveryFailure: Error {
    var reason: String
    var permanent: Bool
}
