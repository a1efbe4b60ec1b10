import Contract
import Foundation
import HydrationContract
import Logging
import NotifyContract
import ServiceKit
import ServiceLifecycle
import Store

/// Turns due occurrences of composed kinds (``ScheduleStore/composedKinds``) into
/// notifications: for each `compose` job it asks the owning service what to say *now* (no
/// transaction open meanwhile), then submits the notification under the occurrence's id in a
/// transaction of its own and completes the job. A crash between the two is harmless: the job
/// comes back after its lease, finds the notification there and completes. Nothing is sent when
/// the service says so (a goal already met).
public struct Composer: Service {
    /// The job kind in notify's queue.
    public static let jobKind = "compose"
    /// Attempts before a composition is dead-lettered (the owning service down for that long).
    public static let maxAttempts = 6

    /// One due occurrence to compose.
    public struct Occurrence: Codable, Sendable, Equatable {
        public var notificationId: UUID
        public var userId: UUID
        public var kind: Notify.Kind
        /// When it was due, in milliseconds since the epoch.
        public var dueAtMs: Int64
    }

    /// What the owning service says of an occurrence.
    public enum Text: Sendable, Equatable {
        /// Send it with this text.
        case send(String)
        /// Send nothing this time (a goal already met).
        case skip
        /// Send nothing, and drop the schedule: its owner has no such plan any more (a plan
        /// change or an account deletion that overtook the schedule).
        case unscheduled
    }

    /// Asks the owning service what an occurrence says.
    public struct Texts: Sendable {
        public let text: @Sendable (Occurrence) async throws -> Text

        public init(_ text: @escaping @Sendable (Occurrence) async throws -> Text) { self.text = text }
    }

    let store: NotificationStore
    let texts: Texts
    let wake: AsyncStream<Void>
    let submitted: @Sendable () -> Void
    let logger: Logger
    /// Jobs claimed at once.
    public var batch = 32
    /// How long a claim holds a job, in seconds.
    public var lease: TimeInterval = 60
    /// How often an idle composer looks for due jobs.
    public var pollInterval: Duration = .milliseconds(250)

    /// A composer; `wake` nudges it, `submitted` is called after a notification was submitted.
    public init(
        store: NotificationStore, texts: Texts, wake: AsyncStream<Void>, logger: Logger,
        submitted: @escaping @Sendable () -> Void
    ) {
        self.store = store
        self.texts = texts
        self.wake = wake
        self.logger = logger
        self.submitted = submitted
    }

    public func run() async throws {
        await JobLoop(wake: wake, pollInterval: pollInterval, logger: logger, failure: "composition round failed").run {
            try await runOnce() == batch
        }
    }

    /// Claims and composes one batch, several at once; returns how many jobs it claimed.
    @discardableResult
    public func runOnce() async throws -> Int {
        let jobs = try await store.queue.claim(kinds: [Self.jobKind], limit: batch, lease: lease)
        await withTaskGroup(of: Void.self) { group in
            // Each composition in its job's span: the trace of what queued it, or a new one.
            for job in jobs { group.addTask { await store.queue.withSpan(of: job) { await compose(job) } } }
        }
        return jobs.count
    }

    func compose(_ job: Job) async {
        do {
            let occurrence = try JSONDecoder().decode(Occurrence.self, from: job.payload)
            if try await !store.exists(occurrence.notificationId) {
                switch try await texts.text(occurrence) {
                case .send(let text):
                    let submission = try Submission(
                        id: occurrence.notificationId, userId: occurrence.userId, email: nil, kind: occurrence.kind,
                        variables: ["text": text])
                    do {
                        if try await store.submit(submission).created { submitted() }
                    } catch let error as ServiceError where error.code == .conflict {
                        // Submitted by an earlier attempt whose completion was lost; the text may have moved on.
                    }
                case .skip:
                    logger.debug(
                        "composed occurrence skipped", metadata: ["notificationId": "\(occurrence.notificationId)"])
                case .unscheduled:
                    try await ScheduleStore(notifications: store, logger: logger).dropComposedSchedule(
                        of: occurrence.userId, kind: occurrence.kind)
                }
            }
            try await store.queue.complete(job)
        } catch {
            logger.warning(
                "composition failed", metadata: ["jobId": "\(job.id)", "error": "\(SafeErrorDescription.of(error))"])
            _ = try? await store.queue.fail(job, reason: SafeErrorDescription.of(error))
        }
    }
}
