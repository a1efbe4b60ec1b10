import Foundation
import RoutingContract
import ServiceKit
import Store

/// Announces timetable changes to the students they concern: inside the transaction of an
/// import or a module deletion, the occurrences of the next ``Routing/ClassChanged/horizonDays``
/// days that the change moves or cancels become `routing.class_changed` events (one per
/// occurrence, or one for a whole series moved the same way, see ``ClassChanges/notices(old:new:horizon:zone:)``;
/// each names every student enrolled in the module). notify turns each into a push and an inbox
/// item per student.
public struct ClassNotices: Sendable {
    let publisher: EventPublisher
    /// The zone of the wall-clock times the events carry.
    let zone: TimeZone
    /// Venue names by id, for the places the events name.
    let venueNames: [UUID: String]
    let requestId: String?

    public init(publisher: EventPublisher, zone: TimeZone, venueNames: [UUID: String], requestId: String?) {
        self.publisher = publisher
        self.zone = zone
        self.venueNames = venueNames
        self.requestId = requestId
    }

    /// A meeting as stored before a change or as it will be after.
    public struct MeetingState: Sendable {
        public var uid: String
        public var moduleCode: String
        public var moduleName: String
        public var kind: String
        public var schedule: MeetingSchedule
        public var venueId: UUID?
        public var location: String
    }

    /// The stored meetings by UID, as they are before a change.
    static func states(_ meetings: [String: TimetableStore.Meeting]) -> [MeetingState] {
        meetings.map { uid, meeting in
            MeetingState(
                uid: uid, moduleCode: meeting.moduleCode, moduleName: meeting.moduleName, kind: meeting.kind,
                schedule: meeting.schedule, venueId: meeting.venueId, location: meeting.location)
        }
    }

    /// Appends one event per moved or cancelled occurrence of the next days, or per moved series;
    /// returns them.
    func announce(
        before: [MeetingState], after: [MeetingState], now: Date, store: TimetableStore, in tx: Transaction
    ) async throws -> [StoredEvent] {
        let horizon = now.addingTimeInterval(TimeInterval(Routing.ClassChanged.horizonDays * 86_400))
        let end = now.addingTimeInterval(ClassChanges.lookahead)
        var classes: [String: (old: [ClassChanges.Slot], new: [ClassChanges.Slot], meeting: MeetingState)] = [:]
        for (state, isOld) in before.map({ ($0, true) }) + after.map({ ($0, false) }) {
            let series = ClassChanges.series(ofUID: state.uid)
            let until = isOld ? end : end.addingTimeInterval(ClassChanges.pairing)
            let slots = state.schedule.occurrences(from: now, to: until).filter { $0.start > now }.map { occurrence in
                ClassChanges.Slot(
                    start: occurrence.start, end: occurrence.end,
                    place: state.venueId?.uuidString.lowercased() ?? state.location,
                    placeName: state.venueId.flatMap { venueNames[$0] } ?? state.location)
            }
            var entry = classes[series] ?? ([], [], state)
            if isOld { entry.old += slots } else { entry.new += slots }
            classes[series] = entry
        }
        var items: [(topic: String, payload: any Encodable)] = []
        var enrolled: [String: [String]] = [:]
        for series in classes.keys.sorted() {
            guard let found = classes[series] else { continue }
            let meeting = found.meeting
            let notices = ClassChanges.notices(old: found.old, new: found.new, horizon: horizon, zone: zone)
            guard !notices.isEmpty else { continue }
            if enrolled[meeting.moduleCode] == nil {
                enrolled[meeting.moduleCode] = try await store.enrolled(in: meeting.moduleCode, in: tx)
            }
            guard let users = enrolled[meeting.moduleCode], !users.isEmpty else { continue }
            for notice in notices {
                let change: ClassChanges.Change
                let kind: String
                switch notice {
                case .single(let single):
                    change = single
                    kind = single.to == nil ? Routing.ClassChanged.cancelled : Routing.ClassChanged.moved
                case .series(let first, _):
                    change = first
                    kind = Routing.ClassChanged.seriesMoved
                }
                let event = Routing.ClassChanged(
                    change: kind,
                    moduleCode: meeting.moduleCode, moduleName: meeting.moduleName, classKind: meeting.kind,
                    start: change.from.start, startLocal: ClassChanges.local(change.from.start, in: zone),
                    location: change.from.placeName, newStart: change.to?.start,
                    newStartLocal: change.to.map { ClassChanges.local($0.start, in: zone) },
                    newLocation: change.to?.placeName, userIds: users)
                items.append((topic: Routing.ClassChanged.topic, payload: event))
            }
        }
        guard !items.isEmpty else { return [] }
        return try await publisher.append(items, requestId: requestId, in: tx)
    }
}
