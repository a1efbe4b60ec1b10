import Contract
import Foundation
import Logging
import ServiceKit
import ServiceLifecycle
import Store

/// Claims render attempts (`SKIP LOCKED`, so replicas share them), renders every recipient's card
/// of the job into one PDF under `DATA_DIR/jobs`, and marks the job `ready`. A failed attempt is
/// retried with the queue's back-off; after the last one the job is `failed` with the reason, and
/// `printing.job_failed` tells orders to refund.
public struct PrintJobRenderer: Service {
    /// The jobs.
    public let book: PrintJobBook
    /// Builds a card's content (image, stamp, text).
    public let cards: PrintJobCards
    /// Where PDFs are written.
    public let files: PrintJobFiles
    /// How long a claim holds an attempt, in seconds.
    public var lease: TimeInterval = 300
    /// How often an idle renderer looks for due attempts.
    public var pollInterval: Duration = .milliseconds(500)
    let wake: AsyncStream<Void>
    let logger: Logger

    /// Creates a renderer; `wake` nudges it to look now.
    public init(
        book: PrintJobBook, cards: PrintJobCards, files: PrintJobFiles, wake: AsyncStream<Void>, logger: Logger
    ) {
        self.book = book
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
        try await JobLoop.claimOne(book.queue, kind: book.renderKind, lease: lease, render)
    }

    func render(_ attempt: Job) async throws {
        let payload = try Wire.makeDecoder().decode([String: String].self, from: attempt.payload)
        guard let id = payload["jobId"].flatMap(UUID.init(uuidString:)) else {
            try await book.queue.fail(attempt, reason: "render attempt without a job id", permanent: true)
            return
        }
        guard let job = try await book.pending(id) else {
            try await book.queue.complete(attempt)
            return
        }
        do {
            let contents = try await cards.contents(of: job.postcard, owner: job.userId)
            let pdf = try await cards.pool.run { PostcardRenderer.pdf(cards: contents) }
            let file = try files.store(pdf, job: id)
            try await book.markReady(job, file: file)
            try await book.queue.complete(attempt)
        } catch {
            let reason = Self.reason(error)
            logger.warning(
                "print job render failed",
                metadata: ["jobId": "\(id)", "attempt": "\(attempt.attempts)", "error": "\(reason)"])
            if case .dead(let final) = try await book.queue.fail(attempt, reason: reason) {
                try await book.change(
                    id, from: ["queued"], to: "failed", reason: "rendering failed: \(final)",
                    topic: Orders.PrintingTopic.jobFailed)
            }
        }
    }

    /// A reason a person can read: a ``ServiceError``'s message, or the error's description.
    static func reason(_ error: any Error) -> String {
        if let error = error as? ServiceError { return error.message }
        return String(describing: error)
    }
}
