import Foundation
import Logging
import ServiceKit
import ServiceLifecycle

/// Keeps this replica's memory of students' and modules' class occurrences (``OccurrenceMemo``,
/// ``ModuleMemo``) in step with timetable changes made on other replicas: every ``interval`` it
/// reads the timetable's version (moved in the transaction of every import that changes
/// something and every module deletion) and, when it moved, drops what both memos hold.
public struct TimetableWatch: Service {
    let timetable: TimetableHandler
    let interval: Duration
    let logger: Logger

    public init(timetable: TimetableHandler, interval: Duration, logger: Logger) {
        self.timetable = timetable
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var seen = try? await timetable.store.version()
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                do {
                    seen = try await check(since: seen)
                } catch {
                    logger.warning(
                        "timetable version check failed", metadata: ["error": "\(SafeErrorDescription.of(error))"])
                }
            }
        }
    }

    /// Drops the memos when the version is no longer `since`; answers the version read.
    @discardableResult
    public func check(since: Int64?) async throws -> Int64 {
        let version = try await timetable.store.version()
        if version != since { timetable.forgetTimetable() }
        return version
    }
}
