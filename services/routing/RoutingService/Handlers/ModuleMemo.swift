import Foundation
import Synchronization

/// Each module's class meetings, and their occurrences over the next hours, kept in this
/// replica's memory and shared by every student of the module: a student's first "take me to my
/// next class" (or first signed-in `locate`) then costs one query (the student's module codes)
/// instead of reading and expanding the student's meetings. Meetings change only through imports
/// and module deletions, which move the timetable's version: this replica forgets everything at
/// once for its own, and within `CAMPUS_REFRESH_MS` for another replica's (``TimetableWatch``).
/// Venues are not kept here (they are looked up in the ``VenueCache`` when an answer is made).
final class ModuleMemo: Sendable {
    /// How far past the window asked an expansion reaches, seconds: the students who ask within
    /// this time share one expansion of a module.
    static let reuse: TimeInterval = 3600
    /// Modules kept at most; past it the memo starts afresh.
    static let capacity = 50_000

    /// One occurrence of a module's meeting (an index into the entry's meetings).
    struct Occurrence: Sendable {
        let meeting: Int
        let start: Date
        let end: Date
    }

    private struct Entry: Sendable {
        let meetings: [TimetableStore.Meeting]
        /// The window expanded, and its occurrences (exceptions left out), in start order.
        var from: Date
        var to: Date
        var occurrences: [Occurrence]

        /// The occurrences overlapping `[from, to)` of `meetings`, soonest first.
        static func expand(_ meetings: [TimetableStore.Meeting], from: Date, to: Date) -> [Occurrence] {
            var found: [Occurrence] = []
            for (index, meeting) in meetings.enumerated() {
                for occurrence in meeting.schedule.occurrences(from: from, to: to) {
                    found.append(Occurrence(meeting: index, start: occurrence.start, end: occurrence.end))
                }
            }
            return found.sorted { ($0.start, $0.meeting) < ($1.start, $1.meeting) }
        }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Moves with every forget; a load started before one is not kept.
        var generation = 0
    }

    private let state = Mutex(State())

    /// The occurrences overlapping `[from, to)` of the meetings of the modules `codes`, each with
    /// its meeting; `load` reads the meetings of the modules not held (one call for all of them).
    func occurrences(
        of codes: [String], from: Date, to: Date,
        load: ([String]) async throws -> [TimetableStore.Meeting]
    ) async throws -> [(meeting: TimetableStore.Meeting, occurrence: Occurrence)] {
        let (held, generation) = state.withLock { state in
            (codes.map { state.entries[$0] }, state.generation)
        }
        var loaded: [String: [TimetableStore.Meeting]] = [:]
        let missing = zip(codes, held).filter { $0.1 == nil }.map(\.0)
        if !missing.isEmpty {
            for meeting in try await load(missing) { loaded[meeting.moduleCode, default: []].append(meeting) }
        }
        var result: [(meeting: TimetableStore.Meeting, occurrence: Occurrence)] = []
        var fresh: [String: Entry] = [:]
        for (code, kept) in zip(codes, held) {
            var entry: Entry
            if let kept, kept.from <= from, kept.to >= to {
                entry = kept
            } else {
                let meetings = kept?.meetings ?? loaded[code] ?? []
                let end = to.addingTimeInterval(Self.reuse)
                entry = Entry(
                    meetings: meetings, from: from, to: end, occurrences: Entry.expand(meetings, from: from, to: end))
                fresh[code] = entry
            }
            for occurrence in entry.occurrences where occurrence.end > from && occurrence.start < to {
                result.append((meeting: entry.meetings[occurrence.meeting], occurrence: occurrence))
            }
        }
        if !fresh.isEmpty {
            state.withLock { state in
                guard state.generation == generation else { return }
                if state.entries.count + fresh.count > Self.capacity { state.entries.removeAll(keepingCapacity: true) }
                state.entries.merge(fresh) { _, new in new }
            }
        }
        return result
    }

    /// Forgets every module (a timetable changed).
    func forgetAll() {
        state.withLock {
            $0.entries.removeAll()
            $0.generation += 1
        }
    }

    /// Modules held now (for tests).
    var count: Int { state.withLock { $0.entries.count } }
}
