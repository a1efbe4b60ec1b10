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

    static let capacity = 500_000
    private let visits = Mutex<Set<Visit>>([])

    func contains(_ visit: Visit) -> Bool { visits.withLock { $0.contains(visit) } }

    func insert(_ visit: Visit) {
        visits.withLock { visits in
            if visits.count >= Self.capacity { visits.removeAll(keepingCapacity: true) }
            visits.insert(visit)
        }
    }
}
