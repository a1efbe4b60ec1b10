import Foundation
import RoutingContract
import Synchronization

/// Each student's class occurrences of the next hours, kept in this replica's memory for a few
/// minutes: a signed-in `locate` (every few seconds per student, for attendance) and "take me to
/// my next class" read them without a database query. This replica forgets a student's entry
/// when the student's modules change here and every entry when a timetable is imported here;
/// other replicas see such changes within ``freshFor``.
final class OccurrenceMemo: Sendable {
    /// How long a loaded entry is used, seconds.
    static let freshFor: TimeInterval = 300
    /// What one load covers from its time: the next-class horizon plus the freshness.
    static let span: TimeInterval = ClassDeparture.horizon + 2 * freshFor
    /// Students kept at most; past it the memo starts afresh.
    static let capacity = 200_000

    private struct Entry {
        let loadedAt: Date
        let items: [Routing.ClassOccurrence]
    }

    private struct State {
        var entries: [UUID: Entry] = [:]
        /// Moves with every forget; a load started before one is not kept.
        var generation = 0
    }

    private let state = Mutex(State())

    /// The user's occurrences not ended at `now` and starting before `now + ClassDeparture.horizon`
    /// (at least), loaded through `load(from, to)` when none fresh are held.
    func upcoming(
        user: UUID, now: Date, load: (Date, Date) async throws -> [Routing.ClassOccurrence]
    ) async throws -> [Routing.ClassOccurrence] {
        let (kept, generation) = state.withLock { ($0.entries[user], $0.generation) }
        if let kept, now >= kept.loadedAt, now.timeIntervalSince(kept.loadedAt) < Self.freshFor {
            return kept.items.filter { $0.end > now }
        }
        let items = try await load(now, now.addingTimeInterval(Self.span))
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.entries.count >= Self.capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[user] = Entry(loadedAt: now, items: items)
        }
        return items
    }

    func forget(_ user: UUID) {
        state.withLock {
            $0.entries[user] = nil
            $0.generation += 1
        }
    }

    func forgetAll() {
        state.withLock {
            $0.entries.removeAll()
            $0.generation += 1
        }
    }
}
