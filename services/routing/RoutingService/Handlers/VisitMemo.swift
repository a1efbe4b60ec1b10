import Foundation
import Synchronization

/// The venue visits this replica has stored already, so that a phone reporting its position
/// every few seconds from the same hall costs one write per week, not one per report. Storing a
/// visit is idempotent (`ON CONFLICT DO NOTHING`), so skipping a repeat loses nothing; a visit
/// another replica stored is stored once more here, harmlessly. When ``capacity`` visits are
/// held, the memo starts afresh.
final class VisitMemo: Sendable {
    struct Visit: Hashable, Sendable {
        let user: UUID
        /// The campus week's first day (`CampusWeek.start`).
        let week: String
        let venue: UUID
    }

    /// A class occurrence attended.
    struct Attendance: Hashable, Sendable {
        let user: UUID
        let meeting: UUID
        let start: Date
    }

    static let capacity = 500_000
    private let visits = Mutex<Set<Visit>>([])
    private let attendances = Mutex<Set<Attendance>>([])

    func contains(_ attendance: Attendance) -> Bool { attendances.withLock { $0.contains(attendance) } }

    func insert(_ attendance: Attendance) {
        attendances.withLock { attendances in
            if attendances.count >= Self.capacity { attendances.removeAll(keepingCapacity: true) }
            attendances.insert(attendance)
        }
    }

    func contains(_ visit: Visit) -> Bool { visits.withLock { $0.contains(visit) } }

    func insert(_ visit: Visit) {
        visits.withLock { visits in
            if visits.count >= Self.capacity { visits.removeAll(keepingCapacity: true) }
            visits.insert(visit)
        }
    }
}
