import Foundation
import Logging
import ServiceLifecycle
import Store

/// The idle loop of a job runner (print jobs, e-cards, notification deliveries): a round runs
/// when the runner is woken or every `pollInterval`, and again at once while a round says more
/// work is waiting, until a graceful shutdown.
///
/// A round still running after `stallTimeout` is stuck on something that will never answer (a
/// query PostgresNIO wrote into a connection that had just closed; see
/// ``Store/PostgresClient/transaction(logger:isolation:_:)``). As the event consumer does, the loop
/// then logs it (`critical`) and ends the process with exit status 75 for its supervisor to start
/// afresh: the job it held is taken again when its lease runs out.
public struct JobLoop: Sendable {
    let wake: AsyncStream<Void>
    let pollInterval: Duration
    let logger: Logger
    /// The log message of a round that threw.
    let failure: Logger.Message
    /// How long one round may run before the process is ended as stuck.
    let stallTimeout: Duration
    /// What is done about a stuck round (by default: the `critical` line, then exit 75).
    let onStall: @Sendable (_ quiet: Duration) -> Void

    /// A loop woken by `wake`; a round that throws is logged as `failure` and the loop goes on.
    /// Give `stallTimeout` more than the longest round can take when well (at least the lease of
    /// the jobs a round holds).
    public init(
        wake: AsyncStream<Void>, pollInterval: Duration, logger: Logger, failure: Logger.Message,
        stallTimeout: Duration = .seconds(900), onStall: (@Sendable (_ quiet: Duration) -> Void)? = nil
    ) {
        self.wake = wake
        self.pollInterval = pollInterval
        self.logger = logger
        self.failure = failure
        self.stallTimeout = stallTimeout
        self.onStall =
            onStall ?? { [logger, failure] quiet in
                logger.critical(
                    "job round stuck: no answer for too long; ending the process to be restarted",
                    metadata: ["round": "\(failure)", "stalledSeconds": "\(quiet.components.seconds)"])
                exit(75)
            }
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
                let watch = StallWatch()
                group.addTask { [stallTimeout, onStall] in
                    await watch.check(after: stallTimeout) { onStall($0.quiet) }
                }
                for await _ in ticks {
                    if Task.isShuttingDownGracefully || Task.isCancelled { break }
                    do {
                        while !Task.isShuttingDownGracefully {
                            watch.begin(now: .now)
                            defer { watch.end() }
                            guard try await round() else { break }
                        }
                    } catch where Task.isCancelled {
                        break
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
