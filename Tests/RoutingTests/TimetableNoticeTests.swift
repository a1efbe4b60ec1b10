import Contract
import Foundation
import Logging
import RoutingContract
import RoutingService
import Store
import Testing

/// What students hear of timetable changes, against real PostgreSQL with a set clock: the
/// `routing.class_changed` events an import or a deletion appends, the class reminders (once
/// per student and occurrence, whichever replica looks), and other replicas dropping what they
/// hold when the timetable's version moves. The world is ``TimetableTests/world(_:)``'s: the
/// clock is a Friday 14:00 in Johannesburg, the next lecture on Monday 08:30 (the Wednesday
/// after is an exception), the next tutorial on Thursday 14:00.
@Suite("routing: class changes and reminders (PostgreSQL)")
struct TimetableNoticeTests {
    static let zone = TimetableTests.zone

    /// The `routing.class_changed` events of a module, oldest first.
    static func changes(_ db: RoutingDatabase, module: String) async throws -> [Routing.ClassChanged] {
        let rows = try await db.client.query(
            """
            SELECT payload::text FROM events.log
            WHERE topic = \(Routing.ClassChanged.topic) AND payload->>'moduleCode' = \(module) ORDER BY seq
            """, logger: RoutingDatabase.logger)
        var events: [Routing.ClassChanged] = []
        for try await text in rows.decode(String.self) {
            events.append(try Wire.makeDecoder().decode(Routing.ClassChanged.self, from: Data(text.utf8)))
        }
        return events
    }

    /// The world's calendar with the tutorial an hour later and next Monday's lecture cancelled.
    static func changed(_ world: TimetableTests.World) -> String {
        let nextMonday = world.monday.on(day: world.monday.dayNumber + 7)
        let wednesday = world.monday.on(day: world.monday.dayNumber + 9)
        return world.calendar()
            .replacingOccurrences(of: "140000", with: "150000")
            .replacingOccurrences(
                of: "\(TimetableTests.basic(wednesday).dropLast(6))083000",
                with: "\(TimetableTests.basic(wednesday).dropLast(6))083000,\(TimetableTests.basic(nextMonday))")
    }

    @Test("a re-import that moves and cancels classes of the next days announces each to the enrolled, once")
    func changesAnnounced() async throws {
        try await RoutingDatabase.with { db in
            let world = try await TimetableTests.world(db)
            let now = db.clock.now()
            _ = try await db.timetable.importTimetable(.init(format: "ical", text: world.calendar()), now: now)
            let students = [UUID(), UUID()]
            for student in students { _ = try await db.timetable.setModules([world.code], user: student) }
            let enrolled = students.map { $0.uuidString.lowercased() }.sorted()
            #expect(try await Self.changes(db, module: world.code).isEmpty, "a new module is no change")

            let report = try await db.timetable.importTimetable(
                .init(format: "ical", text: Self.changed(world)), now: now)
            #expect(report.meetingsUpdated == 2)
            let events = try await Self.changes(db, module: world.code)
            #expect(events.count == 2)
            // Every tutorial moves an hour later: one notice for the series, from the next one.
            let moved = try #require(events.first { $0.change == Routing.ClassChanged.seriesMoved })
            #expect(moved.classKind == "tutorial")
            #expect(moved.startLocal.hasSuffix(" 14:00"))
            #expect(moved.newStartLocal?.hasSuffix(" 15:00") == true)
            #expect(moved.newStart.map { $0.timeIntervalSince(moved.start) } == 3600)
            #expect(moved.location == "Room \(world.uid) nobody knows")
            #expect(moved.userIds == enrolled)
            let cancelled = try #require(events.first { $0.change == Routing.ClassChanged.cancelled })
            #expect(cancelled.classKind == "lecture")
            #expect(cancelled.startLocal.hasSuffix(" 08:30"))
            #expect(cancelled.location == world.hall.name, "the venue's name")
            #expect(cancelled.newStart == nil)
            #expect(cancelled.userIds == enrolled)

            _ = try await db.timetable.importTimetable(.init(format: "ical", text: Self.changed(world)), now: now)
            #expect(try await Self.changes(db, module: world.code).count == 2, "the same file again announces nothing")

            try await db.timetable.deleteModule(world.code, now: now)
            let after = try await Self.changes(db, module: world.code)
            #expect(after.count == 3, "the deletion cancels Thursday's tutorial (Monday's lecture is already off)")
            #expect(after.last?.change == Routing.ClassChanged.cancelled)
            #expect(after.last?.classKind == "tutorial")
            #expect(after.last?.userIds == enrolled)
        }
    }

    @Test("a series moved to another room is one notice; one occurrence moved (RECURRENCE-ID) is one of its own")
    func seriesAndSingleMoves() async throws {
        try await RoutingDatabase.with { db in
            let world = try await TimetableTests.world(db)
            let now = db.clock.now()
            // Monday, Wednesday and Friday at 10:00 from this week's Monday: the next seven days
            // (from Friday 14:00) hold three of them.
            func day(_ offset: Int) -> Substring {
                TimetableTests.basic(world.monday.on(day: world.monday.dayNumber + offset)).dropLast(6)
            }
            func calendar(location: String, override: String? = nil) -> String {
                var lines = [
                    "BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", "UID:\(world.uid)-series",
                    "DTSTART;TZID=Africa/Johannesburg:\(day(0))100000",
                    "DTEND;TZID=Africa/Johannesburg:\(day(0))105000",
                    "RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=30", "SUMMARY:\(world.code) Series Testing - Lecture",
                    "LOCATION:\(location)", "END:VEVENT",
                ]
                if let override {
                    lines += [
                        "BEGIN:VEVENT", "UID:\(world.uid)-series",
                        "RECURRENCE-ID;TZID=Africa/Johannesburg:\(day(9))100000",
                        "DTSTART;TZID=Africa/Johannesburg:\(day(9))110000",
                        "DTEND;TZID=Africa/Johannesburg:\(day(9))115000",
                        "SUMMARY:\(world.code) Series Testing - Lecture",
                        "LOCATION:\(override)", "END:VEVENT",
                    ]
                }
                return (lines + ["END:VCALENDAR", ""]).joined(separator: "\r\n")
            }
            _ = try await db.timetable.importTimetable(
                .init(format: "ical", text: calendar(location: world.hall.name)), now: now)
            _ = try await db.timetable.setModules([world.code], user: UUID())

            // Next Wednesday's lecture an hour later: one notice, for that occurrence.
            _ = try await db.timetable.importTimetable(
                .init(format: "ical", text: calendar(location: world.hall.name, override: world.hall.name)), now: now)
            let single = try await Self.changes(db, module: world.code)
            #expect(single.map(\.change) == [Routing.ClassChanged.moved], "\(single)")
            #expect(single.first?.startLocal == "\(Self.dashed(day(9))) 10:00")
            #expect(single.first?.newStartLocal == "\(Self.dashed(day(9))) 11:00")

            // Every lecture to another room (three of them in the next days): one notice, from
            // next Monday's.
            let room = "Room \(world.uid) elsewhere"
            _ = try await db.timetable.importTimetable(
                .init(format: "ical", text: calendar(location: room, override: room)), now: now)
            let after = try await Self.changes(db, module: world.code)
            #expect(after.count == 2, "\(after)")
            let series = try #require(after.last)
            #expect(series.change == Routing.ClassChanged.seriesMoved)
            #expect(series.startLocal == "\(Self.dashed(day(7))) 10:00")
            #expect(series.newStartLocal == series.startLocal)
            #expect(series.location == world.hall.name)
            #expect(series.newLocation == room)
        }
    }

    /// `YYYY-MM-DD` of `YYYYMMDDT`.
    static func dashed(_ basic: Substring) -> String {
        "\(basic.prefix(4))-\(basic.dropFirst(4).prefix(2))-\(basic.dropFirst(6).prefix(2))"
    }

    @Test("a change further ahead than the horizon, or of a module nobody takes, is not announced")
    func quietChanges() async throws {
        try await RoutingDatabase.with { db in
            let world = try await TimetableTests.world(db)
            let now = db.clock.now()
            _ = try await db.timetable.importTimetable(.init(format: "ical", text: world.calendar()), now: now)
            _ = try await db.timetable.importTimetable(.init(format: "ical", text: Self.changed(world)), now: now)
            #expect(try await Self.changes(db, module: world.code).isEmpty, "nobody is enrolled")
            _ = try await db.timetable.setModules([world.code], user: UUID())
            // The Wednesday after next (day 16) is beyond 7 days.
            let later = world.monday.on(day: world.monday.dayNumber + 16)
            let far = Self.changed(world).replacingOccurrences(
                of: "083000,", with: "083000,\(TimetableTests.basic(later)),")
            _ = try await db.timetable.importTimetable(.init(format: "ical", text: far), now: now)
            #expect(try await Self.changes(db, module: world.code).isEmpty)
        }
    }

    @Test("class reminders: off by default, each student once at their lead, none twice across replicas")
    func reminders() async throws {
        try await RoutingDatabase.with { db in
            let world = try await TimetableTests.world(db)
            _ = try await db.timetable.importTimetable(
                .init(format: "ical", text: world.calendar()), now: db.clock.now())
            let (early, late, off) = (UUID(), UUID(), UUID())
            for student in [early, late, off] { _ = try await db.timetable.setModules([world.code], user: student) }
            try await db.timetable.store.setReminderMinutes(60, of: early, now: db.clock.now())
            try await db.timetable.store.setReminderMinutes(15, of: late, now: db.clock.now())
            #expect(try await db.timetable.store.reminderMinutes(of: late) == 15)
            #expect(try await db.timetable.store.reminderMinutes(of: off) == nil)
            func replica() -> ClassReminders {
                ClassReminders(
                    store: db.timetable.store, transactions: Transactions(db.client, logger: RoutingDatabase.logger),
                    venueCache: VenueCache(store: db.venues), publisher: db.publisher,
                    zone: Self.zone, clock: db.clock, interval: .seconds(30), logger: RoutingDatabase.logger)
            }
            let (one, two) = (replica(), replica())
            func mine(_ reminders: [Routing.ClassReminder]) -> [Routing.ClassReminder] {
                reminders.filter { $0.moduleCode == world.code }
            }
            let upcoming = try await db.timetable.occurrences(
                user: early, from: db.clock.now(), to: db.clock.now().addingTimeInterval(8 * 86_400))
            let tutorial = try #require(upcoming.first { $0.kind == "tutorial" }).start
            db.clock.set(tutorial.addingTimeInterval(-61 * 60))
            #expect(mine(try await one.remind(now: db.clock.now())).isEmpty)
            db.clock.set(tutorial.addingTimeInterval(-59 * 60))
            let first = mine(try await one.remind(now: db.clock.now()))
            #expect(first.map(\.userIds) == [[early.uuidString.lowercased()]])
            #expect(first.first?.classKind == "tutorial")
            #expect(first.first?.start == tutorial)
            #expect(first.first?.startLocal.hasSuffix(" 14:00") == true)
            #expect(mine(try await two.remind(now: db.clock.now())).isEmpty, "the other replica finds it done")
            db.clock.set(tutorial.addingTimeInterval(-14 * 60))
            async let a = one.remind(now: db.clock.now())
            async let b = two.remind(now: db.clock.now())
            let both = mine(try await a) + mine(try await b)
            #expect(both.map(\.userIds) == [[late.uuidString.lowercased()]], "two replicas at once: one reminder")
            try await db.timetable.store.setReminderMinutes(30, of: off, now: db.clock.now())
            db.clock.set(tutorial.addingTimeInterval(1))
            #expect(mine(try await one.remind(now: db.clock.now())).isEmpty, "a class already started is not reminded")
            let logged = try await db.client.query(
                """
                SELECT count(*) FROM events.log
                WHERE topic = \(Routing.ClassReminder.topic) AND payload->>'moduleCode' = \(world.code)
                """, logger: RoutingDatabase.logger)
            for try await count in logged.decode(Int.self) { #expect(count == 2) }
        }
    }

    @Test("another replica drops the classes it holds in memory once the timetable's version moves")
    func otherReplicaSeesChange() async throws {
        try await RoutingDatabase.with { db in
            let world = try await TimetableTests.world(db)
            _ = try await db.timetable.importTimetable(
                .init(format: "ical", text: world.calendar()), now: db.clock.now())
            let student = UUID()
            _ = try await db.timetable.setModules([world.code], user: student)
            let other = RoutingDatabase.timetable(db.client, publisher: db.publisher, clock: db.clock)
            let watch = TimetableWatch(timetable: other, interval: .seconds(5), logger: RoutingDatabase.logger)
            let seen = try await db.timetable.store.version()
            var monday = world.monday.on(day: world.monday.dayNumber + 7)
            (monday.hour, monday.minute) = (8, 25)
            let at = monday.instant(in: Self.zone)
            let hall = try #require(UUID(uuidString: world.hall.id))
            #expect(try await other.attendable(user: student, venue: hall, now: at).count == 1)
            _ = try await db.timetable.importTimetable(
                .init(format: "ical", text: Self.changed(world)), now: db.clock.now())
            #expect(
                try await other.attendable(user: student, venue: hall, now: at).count == 1,
                "still the held copy (the import ran on another replica)")
            let version = try await watch.check(since: seen)
            #expect(version > seen)
            #expect(try await other.attendable(user: student, venue: hall, now: at).isEmpty, "the cancellation seen")
        }
    }

    @Test("a module's meetings are read once per replica and shared by its students until the timetable changes")
    func moduleMemoShared() async throws {
        try await RoutingDatabase.with { db in
            let world = try await TimetableTests.world(db)
            _ = try await db.timetable.importTimetable(
                .init(format: "ical", text: world.calendar()), now: db.clock.now())
            let (first, second) = (UUID(), UUID())
            for student in [first, second] { _ = try await db.timetable.setModules([world.code], user: student) }
            var monday = world.monday.on(day: world.monday.dayNumber + 7)
            (monday.hour, monday.minute) = (8, 25)
            let at = monday.instant(in: Self.zone)
            let hall = try #require(UUID(uuidString: world.hall.id))
            #expect(try await db.timetable.attendable(user: first, venue: hall, now: at).count == 1)
            // Changed behind the service's back (no version moved): the second student's first
            // read is the module as the first student's loaded it.
            try await db.client.query(
                "UPDATE routing.class_meetings SET venue_id = NULL WHERE uid = \(world.uid + "-lecture")",
                logger: RoutingDatabase.logger)
            #expect(try await db.timetable.attendable(user: second, venue: hall, now: at).count == 1)
            db.timetable.forgetTimetable()
            #expect(try await db.timetable.attendable(user: second, venue: hall, now: at).isEmpty, "read again")
        }
    }
}
