import Foundation
import Logging
import RoutingContract

/// The timetable a new database starts with: at start, when no module is stored, the file of
/// `CAMPUS_TIMETABLE_PATH` (or the bundled sample) is imported; `none` imports nothing.
enum TimetableSeed {
    static func importIfEmpty(
        path: String?, timetable: TimetableHandler, now: Date, sample: () throws -> String, logger: Logger
    ) async throws {
        guard path != "none", !(try await timetable.store.hasModules()) else { return }
        let text = try path.map { try String(contentsOf: URL(fileURLWithPath: $0), encoding: .utf8) }
        let report = try await timetable.importTimetable(.init(format: "csv", text: try text ?? sample()), now: now)
        logger.info(
            "imported the timetable",
            metadata: [
                "modules": "\(report.modulesCreated)", "meetings": "\(report.meetingsCreated)",
                "unmatchedLocations": "\(report.unmatchedLocations.count)",
            ])
    }
}
