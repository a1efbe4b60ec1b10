import Foundation
import Logging
import Majordomo
import ServiceLifecycle
import Store
import Synchronization
import Telemetry
import Tracing
import ZeroMQ

/// A durable event consumer: handles every event of its topics exactly once, in log order.
///
/// It catches up from the event log at start, whenever a nudge arrives over ZeroMQ, and at least
/// every `pollInterval` (so a lost nudge or a late-committing event only delays, never loses).
/// A failing handler is retried with back-off; the cursor does not pass an unhandled event.
///
/// A catch-up that makes no progress (no event handled, no round finished) for `stallTimeout`
/// is stuck on something that will not answer (seen once in the fault run: a consumer silent
/// after PostgreSQL was SIGKILLed, while its process served on). The consumer then logs it
/// and ends the process with exit status 75, so that the supervisor (compose's restart policy,
/// `up.sh`'s `RESTART=always`) starts it afresh: its cursor is durable, so nothing is lost.
public struct EventConsumer: Service {
    /// Handles one event inside the transaction that records it as handled.
    public typealias Handler = @Sendable (StoredEvent, Transaction) async throws -> Void

    /// The consumer's durable name (its cursor), e.g. `notify.orders`.
    public let name: String
    /// The topics it handles.
    public let topics: [String]
    private let log: EventLog
    private let pollInterval: Duration
    private let handler: Handler
    private let pump: SocketPump
    private let logger: Logger
    /// How long a catch-up may go without progress before the process is ended (see above).
    public var stallTimeout: Duration = .seconds(120)

    /// Creates a consumer subscribed at the broker's XPUB endpoint.
    public init(
        name: String, topics: [String], log: EventLog, context: Context, endpoint: String,
        pollInterval: Duration = .seconds(1), logger: Logger, handler: @escaping Handler
    ) {
        self.name = name
        self.topics = topics
        self.log = log
        self.pollInterval = pollInterval
        self.handler = handler
        self.logger = logger
        self.pump = SocketPump(context: context, type: .sub, name: "events-sub") { socket in
            for topic in topics { try socket.subscribe(topic) }
            try socket.connect(endpoint)
        }
    }

    /// Why the consumer looks at the log now.
    enum Kick: Sendable {
        case nudge, poll, retry
    }

    public func run() async throws {
        let (kicks, kick) = AsyncStream.makeStream(of: Kick.self, bufferingPolicy: .bufferingNewest(8))
        try await withTaskCancellationOrGracefulShutdownHandler {
            // Discarding: the follow-up timers added below for every quiet nudge are released
            // when they finish, instead of being kept by the group until it ends.
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await pump.run() }
                group.addTask {
                    for await _ in pump.messages { kick.yield(.nudge) }
                }
                group.addTask {
                    while !Task.isCancelled {
                        kick.yield(.poll)
                        try? await Task.sleep(for: pollInterval)
                    }
                }
                let watch = StallWatch()
                let (name, stallTimeout, logger) = (name, stallTimeout, logger)
                group.addTask {
                    await watch.check(after: stallTimeout) { stall in
                        logger.critical(
                            "event consumer stalled: no progress in a catch-up; ending the process to be restarted",
                            metadata: [
                                "consumer": "\(name)", "stalledSeconds": "\(stall.quiet.components.seconds)",
                                "doing": "\(stall.doing)",
                            ])
                        exit(75)
                    }
                }
                let handler = self.handler
                let watched: Handler = { event, transaction in
                    watch.handling("handling event \(event.id) (\(event.topic))")
                    // With tracing on, the handling is a span of the trace that appended the event
                    // (whatever the handler appends or calls joins it too).
                    if let span = Traces.startSpan(
                        "\(name) \(event.topic)", kind: .consumer, parent: event.traceparent)
                    {
                        span.attributes["messaging.system"] = "backplane-events"
                        span.attributes["messaging.destination.name"] = event.topic
                        span.attributes["messaging.consumer.group.name"] = name
                        span.attributes["messaging.message.id"] = event.id.uuidString.lowercased()
                        try await Traces.within(span) { _ in
                            try await handler(event, transaction)
                            logger.debug("event handled", metadata: handled(event, consumer: name))
                        }
                    } else {
                        try await handler(event, transaction)
                        logger.debug("event handled", metadata: handled(event, consumer: name))
                    }
                    watch.progress(now: .now)
                }
                var failures = 0
                // A nudge whose event is not readable yet (an older transaction elsewhere is still
                // open, see EventLog) is followed up soon, rather than at the next poll.
                var followUps = 0
                for await reason in kicks {
                    if Task.isCancelled { break }
                    watch.begin(now: .now)
                    defer { watch.end() }
                    do {
                        let handled = try await log.catchUp(
                            consumer: name, topics: topics, logger: logger, inTransaction: watched)
                        failures = 0
                        if reason == .nudge { followUps = 0 }
                        if handled == 0 && (reason == .nudge || reason == .retry) && followUps < 10 {
                            followUps += 1
                            let delay = Duration.milliseconds(min(2_000, 20 << followUps))
                            group.addTask {
                                try? await Task.sleep(for: delay)
                                kick.yield(.retry)
                            }
                        } else if handled > 0 {
                            followUps = 0
                        }
                    } catch {
                        failures += 1
                        let delay = Duration.milliseconds(min(30_000, 100 << min(failures, 9)))
                        logger.error(
                            "event handler failed; will retry",
                            metadata: [
                                "consumer": "\(name)", "error": "\(SafeErrorDescription.of(error))",
                                "retryInMs": "\(delay.wholeMilliseconds)",
                            ])
                        try? await Task.sleep(for: delay)
                        kick.yield(.retry)
                    }
                }
                group.cancelAll()
                pump.stop()
            }
        } onCancelOrGracefulShutdown: {
            kick.finish()
            pump.stop()
        }
    }
}

/// What the `event handled` line says (the trace, with tracing on, comes from the span).
private func handled(_ event: StoredEvent, consumer: String) -> Logger.Metadata {
    ["consumer": .string(consumer), "topic": .string(event.topic), "eventId": .string(event.id.uuidString.lowercased())]
}

/// When the consumer last made progress in the catch-up under way, if one is, and what it was
/// doing then (for the log line when it stalls).
final class StallWatch: Sendable {
    private struct State {
        var since: ContinuousClock.Instant?
        var doing = "reading the event log"
    }

    private let state = Mutex(State())

    /// A catch-up starts at `now`.
    func begin(now: ContinuousClock.Instant) {
        state.withLock { $0 = State(since: now) }
    }

    /// The handler starts on an event.
    func handling(_ what: String) { state.withLock { $0.doing = what } }

    /// An event was handled at `now`.
    func progress(now: ContinuousClock.Instant) {
        state.withLock {
            guard $0.since != nil else { return }
            $0 = State(since: now)
        }
    }

    /// The catch-up ended.
    func end() { state.withLock { $0 = State() } }

    /// Until cancelled, looks every quarter of `limit` (at most every 5 s) and calls `onStall`
    /// while a round has gone `limit` without progress: the watch task of a loop that must not
    /// wedge (the event consumer, a job loop).
    func check(after limit: Duration, _ onStall: (_ stall: (quiet: Duration, doing: String)) -> Void) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: min(limit / 4, .seconds(5)))
            if let stall = stalled(now: .now, after: limit) { onStall(stall) }
        }
    }

    /// How long the catch-up under way has gone without progress, and what it was doing, when
    /// that is `after` or more.
    func stalled(now: ContinuousClock.Instant, after limit: Duration) -> (quiet: Duration, doing: String)? {
        state.withLock { state in
            guard let since = state.since, now - since >= limit else { return nil }
            return (now - since, state.doing)
        }
    }
}
