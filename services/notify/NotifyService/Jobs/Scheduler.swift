import Foundation
import Logging
import ServiceKit
import ServiceLifecycle

/// Fires due schedules every `pollInterval` on every replica; rows are claimed with
/// `SKIP LOCKED`, so each occurrence fires once however many replicas run.
public struct Scheduler: Service {
    let schedules: ScheduleStore
    let pollInterval: Duration
    let wake: @Sendable () -> Void
    let logger: Logger

    /// Creates the loop; `wake` nudges the deliverer after occurrences fired.
    public init(
        schedules: ScheduleStore, pollInterval: Duration, logger: Logger, wake: @escaping @Sendable () -> Void
    ) {
        self.schedules = schedules
        self.pollInterval = pollInterval
        self.logger = logger
        self.wake = wake
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                var fired = try await schedules.fireDue()
                var total = fired.count
                while fired.count == 500 {
                    fired = try await schedules.fireDue()
                    total += fired.count
                }
                if total > 0 { wake() }
            } catch {
                logger.error("scheduler round failed", metadata: ["error": "\(SafeErrorDescription.of(error))"])
            }
            try? await Task.sleep(for: pollInterval)
        }
    }
}
