import Contract
import Foundation
import NotifyContract
import NotifyService
import RoutingContract
import Store
import Testing

/// routing's class events (`routing.class_changed`, `routing.class_reminder`) through notify's
/// triggers: one notification per student named, once however often the event is handled, in
/// the student's locale, push held by quiet hours.
@Suite("notify: class changes and reminders from routing")
struct ClassNoticeTests {
    static func event(_ topic: String, _ payload: some Encodable, at: Date) throws -> StoredEvent {
        StoredEvent(
            seq: 0, xid: 0, id: UUID(), topic: topic, producer: "routing",
            payload: try Wire.makeEncoder().encode(payload), requestId: nil, createdAt: at)
    }

    static func handle(_ world: NotifyWorld, _ event: StoredEvent) async throws {
        let triggers = Triggers(store: world.store, logger: NotifyWorld.logger)
        try await world.client.withTransaction(logger: NotifyWorld.logger) { connection in
            try await triggers.handle(event, on: connection)
        }
    }

    @Test("a moved and a cancelled class: each enrolled student gets one push and inbox item, a replay none more")
    func changes() async throws {
        try await NotifyWorld.with { world in
            let (ann, bo) = (UUID(), UUID())
            _ = try await world.store.setPreferences(
                .init(timeZone: "UTC", quietHours: nil, locale: "sv", channels: []), of: bo)
            let now = world.clock.now()
            let moved = try Self.event(
                Routing.ClassChanged.topic,
                Routing.ClassChanged(
                    change: Routing.ClassChanged.moved, moduleCode: "COS 301", moduleName: "Software Engineering",
                    classKind: "lecture", start: now.addingTimeInterval(86_400), startLocal: "2024-01-02 10:30",
                    location: "IT 4-1", newStart: now.addingTimeInterval(90_000), newStartLocal: "2024-01-02 11:30",
                    newLocation: "Thuto 1-1", userIds: [ann.uuidString.lowercased(), bo.uuidString.lowercased()]),
                at: now)
            try await Self.handle(world, moved)
            try await Self.handle(world, moved)
            let annItems = try await world.store.inbox(of: ann, .init()).items
            #expect(annItems.map(\.kind) == [Notify.Kind.classMoved])
            #expect(annItems.first?.title == "COS 301 lecture moved")
            #expect(
                annItems.first?.body
                    == "Your COS 301 Software Engineering lecture of 2024-01-02 10:30 in IT 4-1 is now at "
                    + "2024-01-02 11:30 in Thuto 1-1.")
            let boItems = try await world.store.inbox(of: bo, .init()).items
            #expect(boItems.map(\.title) == ["COS 301 (lecture) flyttad"], "in Bo's locale")
            let jobs = try await world.store.queue.claim(limit: 10, lease: 60)
            #expect(jobs.map(\.kind) == ["push", "push"], "one push each, no mail")
            for job in jobs { try await world.store.queue.complete(job) }

            world.clock.advance(by: 60)
            let cancelled = try Self.event(
                Routing.ClassChanged.topic,
                Routing.ClassChanged(
                    change: Routing.ClassChanged.cancelled, moduleCode: "COS 301", moduleName: "Software Engineering",
                    classKind: "tutorial", start: now.addingTimeInterval(86_400), startLocal: "2024-01-02 14:30",
                    location: "IT 4-1", newStart: nil, newStartLocal: nil, newLocation: nil,
                    userIds: [ann.uuidString.lowercased()]),
                at: world.clock.now())
            try await Self.handle(world, cancelled)
            let after = try await world.store.inbox(of: ann, .init()).items
            #expect(after.map(\.kind) == [Notify.Kind.classCancelled, Notify.Kind.classMoved])
            #expect(
                after.first?.body
                    == "Your COS 301 Software Engineering tutorial of 2024-01-02 14:30 in IT 4-1 is cancelled.")
        }
    }

    @Test("a class reminder is held by the student's quiet hours like any non-critical kind, and sent once")
    func reminderQuietHours() async throws {
        // 2024-01-01T00:00:00Z is 01:00 in Stockholm, inside 22:00-07:00.
        try await NotifyWorld.with { world in
            let (quiet, plain) = (UUID(), UUID())
            _ = try await world.store.setPreferences(
                .init(
                    timeZone: "Europe/Stockholm", quietHours: .init(start: "22:00", end: "07:00"), locale: nil,
                    channels: []), of: quiet)
            let now = world.clock.now()
            let reminder = try Self.event(
                Routing.ClassReminder.topic,
                Routing.ClassReminder(
                    meetingId: UUID().uuidString.lowercased(), moduleCode: "WTW 114", moduleName: "Calculus",
                    classKind: "lecture", start: now.addingTimeInterval(900), startLocal: "2024-01-01 02:15",
                    location: "Thuto 1-1", userIds: [quiet.uuidString.lowercased(), plain.uuidString.lowercased()]),
                at: now)
            try await Self.handle(world, reminder)
            try await Self.handle(world, reminder)
            #expect(
                try await world.store.inbox(of: plain, .init()).items.map(\.body)
                    == ["Your WTW 114 Calculus lecture starts at 2024-01-01 02:15 in Thuto 1-1."])
            #expect(try await world.store.inbox(of: quiet, .init()).items.count == 1, "the inbox item is there at once")
            let now1 = try await world.store.queue.claim(limit: 10, lease: 60)
            #expect(now1.count == 1, "only the student without quiet hours is pushed now")
            for job in now1 { try await world.store.queue.complete(job) }
            world.clock.advance(by: 6 * 3600)
            #expect(try await world.store.queue.claim(limit: 10, lease: 60).map(\.kind) == ["push"], "at 07:00 local")
        }
    }
}
