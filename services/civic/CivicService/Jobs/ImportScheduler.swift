import Foundation
import Logging
import ServiceKit
import ServiceLifecycle
import Store

/// The durable import schedule: every ``FeedSettings/intervalSeconds`` a job `import` is queued in
/// `civic.jobs` under the slot's dedupe key (so replicas queue it once), and one replica claims it
/// with a lease and runs the importer. A replica killed mid-import leaves the job leased; when the
/// lease runs out another claims it and runs the import again, which re-reads the pages that were
/// not finished (pages already applied change nothing).
public struct ImportScheduler: Service {
    public static let kind = "import"
    /// How long a claimed import may run before another replica may take it over.
    public static let lease: TimeInterval = 600

    let queue: JobQueue
    let importer: Importer
    let intervalSeconds: Int
    let pollInterval: Duration
    let logger: Logger

    public init(queue: JobQueue, importer: Importer, intervalSeconds: Int, pollInterval: Duration, logger: Logger) {
        self.queue = queue
        self.importer = importer
        self.intervalSeconds = intervalSeconds
        self.pollInterval = pollInterval
        self.logger = logger
    }

    public func run() async throws {
        // Off: wait for shutdown all the same, since a service that returns stops the process's others.
        guard intervalSeconds > 0 else { return try await gracefulShutdown() }
        let (wake, _) = AsyncStream.makeStream(of: Void.self)
        await JobLoop(wake: wake, pollInterval: pollInterval, logger: logger, failure: "import round failed").run {
            try await round() > 0
        }
    }

    /// Queues the current slot's import (once) and runs a due one, if any; how many ran.
    public func round() async throws -> Int {
        let slot = ImportSlot(containing: queue.clock.now(), intervalSeconds: intervalSeconds)
        try await queue.enqueue(kind: Self.kind, payload: Data("{}".utf8), runAt: slot.start, maxAttempts: 5,
            dedupeKey: slot.dedupeKey)
        return try await JobLoop.claimOne(queue, kind: Self.kind, lease: Self.lease) { job in
            do {
                try await importer.run()
                try await queue.complete(job)
            } catch {
                let outcome = try await queue.fail(job, reason: SafeErrorDescription.of(error))
                logger.warning(
                    "import failed", metadata: ["error": "\(SafeErrorDescription.of(error))", "outcome": "\(outcome)"])
            }
        }
    }
}
