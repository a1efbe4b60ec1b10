import Foundation
import Logging
import ServiceLifecycle
import Store

/// The idle loop of a job runner (print jobs, e-cards, notification deliveries): a round runs
/// when the runner is woken or every `pollInterval`, and again at once while a round says more
/// work is waiting, until a graceful shutdown.
public struct JobLoop: Sendable {
    let wake: AsyncStream<Void>
    let pollInterval: Duration
    let logger: Logger
    /// The log message of a round that threw.
    let failure: Logger.Message

    /// A loop woken by `wake`; a round that throws is logged as `failure` and the loop goes on.
    public init(wake: AsyncStream<Void>, pollInterval: Duration, logger: Logger, failure: Logger.Message) {
        self.wake = wake
        self.pollInterval = pollInterval
        self.logger = logger
        self.failure = failure
    }

    /// Runs `round` (true: more work may be due now) until shutdown.
    public func run(_ round: @escaping @Sendable () async throws -> Bool) async {
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
                        while try await round(), !Task.isShuttingDownGracefully {}
                    } catch {
                        logger.error(failure, metadata: ["error": "\(SafeErrorDescription.of(error))"])
                    }
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
        }
    }

    /// Claims one due job of `kind` from `queue` (`SKIP LOCKED`, so replicas share them) and
    /// hands it to `handle`, inside the job's span (``JobQueue/withSpan(of:tracer:isolation:_:)``: the
    /// trace of what queued it); returns how many it claimed (0 or 1).
    public static func claimOne(
        _ queue: JobQueue, kind: String, lease: TimeInterval, _ handle: (Job) async throws -> Void
    ) async throws -> Int {
        let claimed = try await queue.claim(kinds: [kind], limit: 1, lease: lease)
        for job in claimed { try await queue.withSpan(of: job) { try await handle(job) } }
        return claimed.count
    }
}
