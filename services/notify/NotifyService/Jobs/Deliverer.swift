import Contract
import Foundation
import Logging
import Metrics
import NotifyContract
import ServiceKit
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
    public let apns: (any PushClient)?
    /// FCM, for `android` and `web` devices.
    public let fcm: (any PushClient)?
    /// Jobs claimed at once.
    public var batch = 64
    /// SMTP sessions used in parallel for one batch.
    public var smtpConnections = 4
    /// Push requests in flight at once for one batch.
    public var pushConcurrency = 32
    /// How long a claim holds a job, in seconds.
    public var lease: TimeInterval = 120
    /// How often an idle deliverer looks for due jobs.
    public var pollInterval: Duration = .milliseconds(200)
    /// Files some mails carry (e-card images), fetched when they go out.
    public var attachments: (any MailAttachmentSource)?
    /// Where the push configuration-error counter goes (nil: the process's `MetricsSystem`).
    public var metrics: (any MetricsFactory)?
    /// The apps that may appear as a metric label as they are (others are `other`).
    public var knownApps = Set(APNsTopics.apps)
    /// Where refused tokens of directly addressed devices are announced to their sender
    /// (`notify.device_token_refused`); nil: they are only in the delivery log.
    public var events: EventPublisher?
    let wake: AsyncStream<Void>
    let logger: Logger

    /// Creates a deliverer; `wake` nudges it to look now.
    public init(
        store: NotificationStore, directory: any Directory, smtp: SMTPClient?, mailFrom: String,
        apns: (any PushClient)?, fcm: (any PushClient)?, wake: AsyncStream<Void>, logger: Logger
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
        await JobLoop(wake: wake, pollInterval: pollInterval, logger: logger, failure: "delivery round failed").run {
            try await runOnce() == batch
        }
    }

    /// Claims and delivers one batch; returns how many jobs it claimed. The batch costs a fixed
    /// number of statements (claim, load, earlier attempts when some jobs are retries, complete
    /// and log) and one auth call, plus each e-mail's two hand-over marks. With tracing on, each
    /// job has a span in the trace that queued it, from the claim to the batch's record, and its
    /// own sending (SMTP, push) runs inside it.
    @discardableResult
    public func runOnce() async throws -> Int {
        let jobs = try await store.queue.claim(
            kinds: [Notify.Channel.email, Notify.Channel.push], limit: batch, lease: lease)
        if jobs.isEmpty { return 0 }
        let spans = JobSpans(jobs, queue: store.queue)
        defer { spans.endAll() }
        let plan = try await plan(jobs)
        var results = plan.settled
        let (mails, withFiles) = splitByAttachments(plan.mails)
        await withTaskGroup(of: [DeliveryResult].self) { group in
            let lanes = max(1, min(smtpConnections, mails.count))
            for lane in 0..<lanes {
                let share = stride(from: lane, to: mails.count, by: lanes).map { mails[$0] }
                if !share.isEmpty { group.addTask { await sendMails(share, spans: spans) } }
            }
            if !withFiles.isEmpty { group.addTask { await sendWithAttachments(withFiles, spans: spans) } }
            let width = max(1, min(pushConcurrency, plan.pushes.count))
            for lane in 0..<width {
                let share = stride(from: lane, to: plan.pushes.count, by: width).map { plan.pushes[$0] }
                if !share.isEmpty {
                    group.addTask { await share.asyncMap { work in await spans.within(work.job) { await push(work) } } }
                }
            }
            for await finished in group { results += finished }
        }
        try await record(results)
        for result in results { spans.end(result.job, failed: result.failure != nil) }
        return jobs.count
    }

    /// Writes a batch's results: each failure on its own (rare), then every completion and log
    /// line in one statement.
    func record(_ results: [DeliveryResult]) async throws {
        var done: [Job] = []
        var lines: [DeliveryLine] = []
        for result in results {
            lines += result.lines
            guard let failure = result.failure else {
                done.append(result.job)
                continue
            }
            do {
                let outcome = try await store.queue.fail(
                    result.job, reason: failure.reason, permanent: failure.permanent)
                if let notification = result.notification {
                    let state: String
                    if case .dead = outcome { state = "dead" } else { state = "retry" }
                    lines.append(notification.line(result.job.kind, state, detail: failure.reason))
                }
            } catch {
                logger.warning(
                    "could not record a failed delivery",
                    metadata: ["jobId": "\(result.job.id)", "error": "\(SafeErrorDescription.of(error))"])
            }
        }
        let refused = results.flatMap(\.refusedDevices)
        let completed: Int
        if let events, !refused.isEmpty {
            // The batch's record and the refusals commit together: a refusal is announced once
            // with the delivery that met it, and again only if that delivery is retried.
            let (count, appended) = try await store.transactions.run { tx in
                let count = try await store.finish(done, lines: lines, in: tx)
                let appended = try await events.append(
                    refused.map { (topic: Notify.DeviceTokenRefused.topic, payload: $0 as any Encodable) },
                    requestId: nil, in: tx)
                return (count, appended)
            }
            appended.forEach(events.announce)
            completed = count
        } else {
            completed = try await store.finish(done, lines: lines)
        }
        if completed < done.count {
            logger.warning(
                "some deliveries had lost their claim", metadata: ["lost": "\(done.count - completed)"])
        }
    }
}

extension Sequence where Element: Sendable {
    /// `transform` applied to each element in turn.
    func asyncMap<T>(_ transform: (Element) async -> T) async -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(await transform(element)) }
        return mapped
    }
}
