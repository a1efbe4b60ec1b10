import Foundation
import Logging
import RoutingContract
import ServiceKit
import ServiceLifecycle
import Store

/// Class reminders: every ``interval`` each replica looks for class occurrences whose students
/// asked to be reminded `minutesBefore` the start and whose time has come, records each
/// (student, occurrence) once and appends `routing.class_reminder` in that same transaction;
/// notify turns it into a push and an inbox item (quiet hours as for every kind). An occurrence
/// already started is not reminded of (a replica that was down misses it rather than reminding
/// late).
public struct ClassReminders: Service {
    let store: TimetableStore
    let transactions: Transactions
    let venueCache: VenueCache
    let publisher: EventPublisher
    let zone: TimeZone
    let clock: any WallClock
    let interval: Duration
    let logger: Logger

    /// The longest lead a student may choose, minutes.
    public static let maximumMinutes = 120
    /// The shortest.
    public static let minimumMinutes = 5

    public init(
        store: TimetableStore, transactions: Transactions, venueCache: VenueCache, publisher: EventPublisher,
        zone: TimeZone, clock: any WallClock, interval: Duration, logger: Logger
    ) {
        self.store = store
        self.transactions = transactions
        self.venueCache = venueCache
        self.publisher = publisher
        self.zone = zone
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                do {
                    _ = try await remind(now: clock.now())
                } catch {
                    logger.warning("class reminders failed", metadata: ["error": "\(SafeErrorDescription.of(error))"])
                }
            }
        }
    }

    /// Appends the reminders due at `now` (and not appended before); answers them.
    @discardableResult
    public func remind(now: Date) async throws -> [Routing.ClassReminder] {
        let end = now.addingTimeInterval(TimeInterval(Self.maximumMinutes * 60))
        var due: [(meetingId: UUID, moduleCode: String, start: Date)] = []
        var about: [(meeting: TimetableStore.Meeting, start: Date, location: String)] = []
        for meeting in try await store.remindedMeetings(from: now, to: end) {
            var location = meeting.location
            if let id = meeting.venueId, let venue = try await venueCache.venue(id: id) { location = venue.name }
            for occurrence in meeting.schedule.occurrences(from: now, to: end)
            where occurrence.start > now && occurrence.start <= end {
                due.append((meeting.id, meeting.moduleCode, occurrence.start))
                about.append((meeting, occurrence.start, location))
            }
        }
        guard !due.isEmpty else { return [] }
        let (reminders, stored) = try await transactions.run { tx -> ([Routing.ClassReminder], [StoredEvent]) in
            let claimed = try await store.claimReminders(due, now: now, in: tx)
            let reminders = claimed.keys.sorted().compactMap { position -> Routing.ClassReminder? in
                guard let users = claimed[position] else { return nil }
                let (meeting, start, location) = about[position]
                return Routing.ClassReminder(
                    meetingId: meeting.id.uuidString.lowercased(), moduleCode: meeting.moduleCode,
                    moduleName: meeting.moduleName, classKind: meeting.kind, start: start,
                    startLocal: ClassChanges.local(start, in: zone), location: location, userIds: users)
            }
            guard !reminders.isEmpty else { return ([Routing.ClassReminder](), [StoredEvent]()) }
            let stored = try await publisher.append(
                reminders.map { (topic: Routing.ClassReminder.topic, payload: $0 as any Encodable) }, requestId: nil,
                in: tx)
            return (reminders, stored)
        }
        for event in stored { publisher.announce(event) }
        if Int(now.timeIntervalSince1970) % 3600 < 60 {
            try await store.pruneReminders(before: now.addingTimeInterval(-86_400))
        }
        return reminders
    }
}
