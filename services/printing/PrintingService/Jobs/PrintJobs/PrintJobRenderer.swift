import Contract
import Foundation
import Logging
import PrintingContract
import ServiceKit
import ServiceLifecycle
import Store

/// Claims render attempts (`SKIP LOCKED`, so replicas share them), renders every recipient's card
/// of the job into one PDF under `DATA_DIR/jobs`, and marks the job `ready`. A failed attempt is
/// retried with the queue's back-off; after the last one the job is `failed` with the reason, and
/// `printing.job_failed` tells orders to refund.
public struct PrintJobRenderer: Service {
    /// The jobs.
    public let store: PrintJobStore
    /// Builds a card's content (image, stamp, text).
    public let cards: PrintJobCards
    /// Where PDFs are written.
    public let files: PrintJobFiles
    /// How long a claim holds an attempt, in seconds (`PRINT_RENDER_LEASE_MS`): a render takes
    /// well under a second, so a job whose renderer was killed is taken again within a minute.
    public var lease: TimeInterval = 60
    /// How often an idle renderer looks for due attempts.
    public var pollInterval: Duration = .milliseconds(500)
    let wake: AsyncStream<Void>
    let logger: Logger

    /// Creates a renderer; `wake` nudges it to look now.
    public init(
        store: PrintJobStore, cards: PrintJobCards, files: PrintJobFiles, wake: AsyncStream<Void>, logger: Logger
    ) {
        self.store = store
        self.cards = cards
        self.files = files
        self.wake = wake
        self.logger = logger
    }

    public func run() async throws {
        await JobLoop(wake: wake, pollInterval: pollInterval, logger: logger, failure: "render round failed").run {
            try await runOnce() > 0
        }
    }

    /// Claims and runs one due render attempt; returns how many it claimed (0 or 1).
    @discardableResult
    public func runOnce() async throws -> Int {
        try await JobLoop.claimOne(store.queue, kind: store.renderKind, lease: lease, render)
    }

    func render(_ attempt: Job) async throws {
        try await RenderAttempt<PrintJobStore.Pending>(
            queue: store.queue, idKey: "jobId", what: "print job", logger: logger
        )
        .run(attempt, load: store.pending) { job in
            let contents = try await cards.contents(of: job.postcard, owner: job.userId)
            let pdf = try await cards.pool.run { PostcardRenderer.pdf(cards: contents) }
            let file = try files.store(pdf, job: job.id)
            try await store.markReady(job, file: file)
        } failed: { id, reason in
            try await store.change(
                id, from: ["queued"], to: "failed", reason: reason, topic: Printing.Topic.jobFailed)
        }
    }
}
