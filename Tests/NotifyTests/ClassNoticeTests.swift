import Contract
import Foundation
import NotifyContract
import NotifyService
import RoutingContract
import Store
import Testing

/// routing's class events (`routing.class_changed`, `routing.class_reminder`) through notify's
/// triggers: one notification per student named, once however often the event is handled, in
/// the student's locale, push held by quiet hours, and a reminder's push dropped once its class
/// has begun.
@Suite("notify: class changes and reminders from routing")
struct ClassNoticeTests {
    static func event(_ topic: String, _ payload: some Encodable, at: Date) throws -> StoredEvent {
        StoredEvent(
            seq: 0, xid: 0, id: UUID(), topic: topic, producer: "routing",
            payload: try Wire.makeEncoder().encode(payload), requestId: nil, createdAt: at)
    }

    static func handle(_ world: NotifyWorld, _ event: StoredEvent) async throws {
        let triggers = Triggers(store: world.store, logger: NotifyWorld.logger)
        try await Transactions(world.client, logger: NotifyWorld.logger).run { tx in
            try await triggers.handle(event, in: tx)
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

    @Test("a moved series is one class_series_moved notification per student, in their locale")
    func seriesMoved() async throws {
        try await NotifyWorld.with { world in
            let (ann, bo) = (UUID(), UUID())
            _ = try await world.store.setPreferences(
                .init(timeZone: "UTC", quietHours: nil, locale: "sv", channels: []), of: bo)
            let now = world.clock.now()
            let series = try Self.event(
                Routing.ClassChanged.topic,
                Routing.ClassChanged(
                    change: Routing.ClassChanged.seriesMoved, moduleCode: "COS 301", moduleName: "Software Engineering",
                    classKind: "lecture", start: now.addingTimeInterval(86_400), startLocal: "2024-01-02 10:30",
                    location: "IT 4-1", newStart: now.addingTimeInterval(86_400), newStartLocal: "2024-01-02 10:30",
                    newLocation: "Thuto 1-1", userIds: [ann.uuidString.lowercased(), bo.uuidString.lowercased()]),
                at: now)
            try await Self.handle(world, series)
            try await Self.handle(world, series)
            let annItems = try await world.store.inbox(of: ann, .init()).items
            #expect(annItems.map(\.kind) == [Notify.Kind.classSeriesMoved])
            #expect(annItems.first?.title == "COS 301 lecture moves from 2024-01-02")
            #expect(
                annItems.first?.body
                    == "From 2024-01-02 your COS 301 Software Engineering lecture moves: the one of 2024-01-02 10:30 "
                    + "in IT 4-1 is at 2024-01-02 10:30 in Thuto 1-1, and every later one moves the same way.")
            #expect(
                try await world.store.inbox(of: bo, .init()).items.map(\.title)
                    == ["COS 301 (lecture) flyttas från 2024-01-02"])
            #expect(try await world.store.queue.claim(limit: 10, lease: 60).map(\.kind) == ["push", "push"])
        }
    }

    static func reminder(
        at start: Date, startLocal: String, users: [UUID], now: Date
    ) throws -> StoredEvent {
        try event(
            Routing.ClassReminder.topic,
            Routing.ClassReminder(
                meetingId: UUID().uuidString.lowercased(), moduleCode: "WTW 114", moduleName: "Calculus",
                classKind: "lecture", start: start, startLocal: startLocal, location: "Thuto 1-1",
                userIds: users.map { $0.uuidString.lowercased() }),
            at: now)
    }

    @Test("a reminder held by quiet hours is pushed when they end if the class has not begun, else inbox only")
    func reminderQuietHours() async throws {
        // 2024-01-01T00:00:00Z is 01:00 in Stockholm, inside 22:00-07:00.
        try await NotifyWorld.with { world in
            let (quiet, plain) = (UUID(), UUID())
            _ = try await world.store.setPreferences(
                .init(
                    timeZone: "Europe/Stockholm", quietHours: .init(start: "22:00", end: "07:00"), locale: nil,
                    channels: []), of: quiet)
            let now = world.clock.now()
            // A class at 01:15: quiet hours end long after it has begun.
            let early = try Self.reminder(
                at: now.addingTimeInterval(900), startLocal: "2024-01-01 02:15", users: [quiet, plain], now: now)
            try await Self.handle(world, early)
            try await Self.handle(world, early)
            #expect(
                try await world.store.inbox(of: plain, .init()).items.map(\.body)
                    == ["Your WTW 114 Calculus lecture starts at 2024-01-01 02:15 in Thuto 1-1."])
            let held = try await world.store.inbox(of: quiet, .init()).items
            #expect(held.count == 1, "the inbox item is there at once")
            let id = try #require(held.first.flatMap { UUID(uuidString: $0.notificationId) })
            #expect(try await world.outcomes(id, "push") == ["skipped"], "no push is queued for after the start")
            let pushes = try await world.store.queue.claim(limit: 10, lease: 60)
            #expect(pushes.count == 1, "only the student without quiet hours is pushed")
            for job in pushes { try await world.store.queue.complete(job) }
            world.clock.advance(by: 6 * 3600)
            #expect(try await world.store.queue.claim(limit: 10, lease: 60).isEmpty, "nothing at 07:00 local")

            // At 06:30 local a class at 07:30: pushed when quiet hours end at 07:00.
            world.clock.set(Date(timeIntervalSince1970: 1_704_067_200 + 5.5 * 3600))
            let later = try Self.reminder(
                at: world.clock.now().addingTimeInterval(3600), startLocal: "2024-01-01 07:30", users: [quiet],
                now: world.clock.now())
            try await Self.handle(world, later)
            #expect(try await world.store.queue.claim(limit: 10, lease: 60).isEmpty, "still quiet")
            world.clock.advance(by: 1800)
            #expect(try await world.store.queue.claim(limit: 10, lease: 60).map(\.kind) == ["push"], "at 07:00 local")
        }
    }

    @Test("delivery: a reminder is not pushed once its class has begun (a retry, a backlog); the inbox keeps it")
    func reminderExpires() async throws {
        let providers = FakeProviders()
        try await providers.serve { base in
            try await NotifyWorld.with { world in
                let fcm = FCMClient(
                    settings: .init(endpoint: base, projectId: "backplane"), tokens: StaticAccessToken("at"))
                let directory = FakeDirectory()
                let (ready, busy, behind) = (UUID(), UUID(), UUID())
                directory.add(ready, devices: [("ok-ready", "android")])
                directory.add(busy, devices: [("busy-student", "android")])
                directory.add(behind, devices: [("ok-behind", "android")])
                var deliverer = Deliverer(
                    store: world.store, directory: directory, smtp: nil, mailFrom: "no-reply@backplane.local",
                    apns: nil, fcm: fcm, wake: AsyncStream { _ in }, logger: NotifyWorld.logger)
                deliverer.batch = 50
                let now = world.clock.now()
                try await Self.handle(
                    world,
                    try Self.reminder(
                        at: now.addingTimeInterval(600), startLocal: "2024-01-01 00:10", users: [ready, busy],
                        now: now))
                #expect(try await deliverer.runOnce() == 2)
                #expect(providers.count("ok-ready") == 1, "before the class: pushed")
                #expect(providers.count("busy-student") == 1, "refused with 429, to be retried")

                // The retry comes due after the class has begun: not pushed.
                world.clock.advance(by: 601)
                #expect(try await deliverer.runOnce() == 1)
                #expect(providers.count("busy-student") == 1)
                let busyItem = try #require(try await world.store.inbox(of: busy, .init()).items.first)
                let busyId = try #require(UUID(uuidString: busyItem.notificationId))
                #expect(try await world.outcomes(busyId, "push") == ["retry", "skipped"])

                // A reminder left in a backlog until its class began: not pushed either.
                let backlog = world.clock.now()
                try await Self.handle(
                    world,
                    try Self.reminder(
                        at: backlog.addingTimeInterval(300), startLocal: "2024-01-01 00:20", users: [behind],
                        now: backlog))
                world.clock.advance(by: 300)
                #expect(try await deliverer.runOnce() == 1)
                #expect(providers.count("ok-behind") == 0)
                #expect(try await world.store.inbox(of: behind, .init()).items.count == 1)
                #expect(providers.total == 2)
            }
        }
    }
}
