import Contract
import Foundation
import RoutingContract
import RoutingService
import Testing

/// Timetable imports, enrolment, the expanded timetable and the private feed against real
/// PostgreSQL, with a clock the test sets. Module codes, UIDs and venue names are the test's own.
@Suite("routing: timetable (PostgreSQL)")
struct TimetableTests {
    static let zone = TimeZone(identifier: "Africa/Johannesburg")!

    /// A module code no other test uses: 5 random letters and 3 digits.
    static func moduleCode() -> String {
        let letters = (0..<5).map { _ in String(UnicodeScalar(UInt8.random(in: 65...90))) }.joined()
        return "\(letters) \(Int.random(in: 100...999))"
    }

    /// `YYYYMMDDTHHMMSS` of a wall-clock time.
    static func basic(_ time: LocalDateTime) -> String {
        String(format: "%04d%02d%02dT%02d%02d%02d", time.year, time.month, time.day, time.hour, time.minute, time.second)
    }

    /// The test's world: two venues, a module with a weekly lecture (Monday and Wednesday 08:30,
    /// ten weeks from the Monday of the clock's week, the second Wednesday cancelled) and a
    /// tutorial somewhere no venue is named.
    struct World {
        let code: String
        let hall: Routing.Venue
        let monday: LocalDateTime
        let uid: String
        func calendar(location: String? = nil) -> String {
            let first = monday
            var wednesday = monday.on(day: monday.dayNumber + 9)
            wednesday.hour = 8
            return """
                BEGIN:VCALENDAR
                VERSION:2.0
                BEGIN:VEVENT
                UID:\(uid)-lecture
                DTSTART;TZID=Africa/Johannesburg:\(TimetableTests.basic(first))
                DTEND;TZID=Africa/Johannesburg:\(TimetableTests.basic(first.on(day: first.dayNumber)).dropLast(6))092000
                RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=20
                EXDATE;TZID=Africa/Johannesburg:\(TimetableTests.basic(wednesday).dropLast(6))083000
                SUMMARY:\(code) Timetable Testing - Lecture
                LOCATION:\(location ?? hall.name.uppercased())
                X-NAVUP-FACULTY:Engineering
                END:VEVENT
                BEGIN:VEVENT
                UID:\(uid)-tutorial
                DTSTART:\(TimetableTests.basic(first.on(day: first.dayNumber + 3)).dropLast(6))140000
                DURATION:PT1H
                RRULE:FREQ=WEEKLY;COUNT=10
                SUMMARY:\(code) Tutorial
                LOCATION:Room \(uid) nobody knows
                END:VEVENT
                END:VCALENDAR
                """
        }
    }

    static func world(_ db: RoutingDatabase) async throws -> World {
        let hall = try await db.venues.create(
            .init(
                name: "Timetable Hall \(UUID().uuidString.prefix(8))", kind: "lecture_hall", level: 1, lat: -25.7555,
                lon: 28.2315),
            id: UUID(), now: db.clock.now())
        let today = LocalDateTime.at(db.clock.now(), in: zone)
        var monday = today.on(day: today.dayNumber - (today.weekday - 1))
        (monday.hour, monday.minute, monday.second) = (8, 30, 0)
        return World(code: moduleCode(), hall: hall, monday: monday, uid: UUID().uuidString.lowercased())
    }

    @Test("an iCalendar import creates, a re-import changes nothing, an edit updates; unmatched locations are reported")
    func importIdempotent() async throws {
        try await RoutingDatabase.with { db in
            let world = try await Self.world(db)
            let now = db.clock.now()
            let first = try await db.timetable.importTimetable(.init(format: "ical", text: world.calendar()), now: now)
            #expect(first.modulesCreated == 1)
            #expect(first.meetingsCreated == 2)
            #expect(first.meetingsUpdated == 0)
            #expect(first.unmatchedLocations == ["Room \(world.uid) nobody knows"])
            let again = try await db.timetable.importTimetable(.init(format: "ical", text: world.calendar()), now: now)
            #expect(again == .init(
                modulesCreated: 0, modulesUpdated: 0, meetingsCreated: 0, meetingsUpdated: 0, meetingsUnchanged: 2,
                meetingsCancelled: 0, unmatchedLocations: ["Room \(world.uid) nobody knows"]))
            let moved = try await db.timetable.importTimetable(
                .init(format: "ical", text: world.calendar(location: "Somewhere else \(world.uid)")), now: now)
            #expect(moved.meetingsUpdated == 1)
            #expect(moved.meetingsUnchanged == 1)
            #expect(moved.unmatchedLocations.count == 2)
            let cancel = """
                BEGIN:VCALENDAR
                BEGIN:VEVENT
                UID:\(world.uid)-tutorial
                STATUS:CANCELLED
                DTSTART:20260101T100000
                SUMMARY:\(world.code)
                END:VEVENT
                END:VCALENDAR
                """
            let cancelled = try await db.timetable.importTimetable(.init(format: "ical", text: cancel), now: now)
            #expect(cancelled.meetingsCancelled == 1)
            let listed = try await db.timetable.store.modules().first { $0.code == world.code }
            #expect(listed == .init(code: world.code, name: "Timetable Testing", faculty: "Engineering", meetings: 1))
            try await db.timetable.deleteModule(world.code.replacingOccurrences(of: " ", with: "%20"), now: now)
            #expect(try await db.timetable.store.meetings(module: world.code).isEmpty)
            await #expect(throws: ServiceError.self) { try await db.timetable.deleteModule(world.code, now: now) }
        }
    }

    @Test("bad files are 400s naming the line and field; nothing is stored")
    func badInput() async throws {
        try await RoutingDatabase.with { db in
            let world = try await Self.world(db)
            let broken = world.calendar().replacingOccurrences(of: "COUNT=20", with: "COUNT=20;BYMONTH=3")
            do {
                _ = try await db.timetable.importTimetable(.init(format: "ical", text: broken), now: db.clock.now())
                Issue.record("a BYMONTH rule was taken")
            } catch let error as ServiceError {
                #expect(error.code == .invalidArgument)
                #expect(error.details?["line"] == .number(7))
                #expect(error.details?["field"] == .string("RRULE"))
                #expect(error.message.hasPrefix("line 7, RRULE:"))
            }
            #expect(try await db.timetable.store.meetings(module: world.code).isEmpty)
            await #expect(throws: ServiceError.self) {
                _ = try await db.timetable.importTimetable(.init(format: "pdf", text: "x"), now: db.clock.now())
            }
        }
    }

    @Test("a student's modules and timetable: occurrences in the window, the venue, cancellations applied")
    func timetable() async throws {
        try await RoutingDatabase.with { db in
            let world = try await Self.world(db)
            _ = try await db.timetable.importTimetable(.init(format: "ical", text: world.calendar()), now: db.clock.now())
            let student = UUID()
            await #expect(throws: ServiceError.self) {
                _ = try await db.timetable.setModules([world.code, "ZZZZZ 999"], user: student)
            }
            let set = try await db.timetable.setModules([world.code.lowercased().replacingOccurrences(of: " ", with: "")], user: student)
            #expect(set.codes == [world.code])
            let weekStart = world.monday.on(day: world.monday.dayNumber)
            var midnight = weekStart
            (midnight.hour, midnight.minute) = (0, 0)
            let from = midnight.instant(in: Self.zone)
            let twoWeeks = try await db.timetable.timetable(
                user: student, from: from.formatted(.iso8601), to: from.addingTimeInterval(14 * 86_400).formatted(.iso8601),
                now: db.clock.now())
            #expect(twoWeeks.modules == [world.code])
            let lectures = twoWeeks.items.filter { $0.kind == "lecture" }
            // Mon, Wed, Mon, (Wed cancelled).
            #expect(lectures.count == 3)
            #expect(lectures.allSatisfy { $0.venue?.id == world.hall.id && $0.moduleName == "Timetable Testing" })
            #expect(lectures.allSatisfy { LocalDateTime.at($0.start, in: Self.zone).description.hasSuffix("T08:30:00") })
            #expect(lectures.allSatisfy { $0.end.timeIntervalSince($0.start) == 50 * 60 })
            let tutorials = twoWeeks.items.filter { $0.kind == "tutorial" }
            #expect(tutorials.count == 2)
            #expect(tutorials.allSatisfy { $0.venue == nil })
            #expect(twoWeeks.items.map(\.start) == twoWeeks.items.map(\.start).sorted())
            #expect(twoWeeks.feedUrl.hasPrefix("https://navup.test/v1/timetables/"))
            #expect(twoWeeks.feedUrl.hasSuffix(".ics"))
            // Someone else has none of it.
            let other = try await db.timetable.timetable(user: UUID(), from: nil, to: nil, now: db.clock.now())
            #expect(other.items.isEmpty)
            await #expect(throws: ServiceError.self) {
                _ = try await db.timetable.timetable(user: student, from: "yesterday", to: nil, now: db.clock.now())
            }
            await #expect(throws: ServiceError.self) {
                _ = try await db.timetable.timetable(
                    user: student, from: from.formatted(.iso8601),
                    to: from.addingTimeInterval(90 * 86_400).formatted(.iso8601), now: db.clock.now())
            }
        }
    }

    @Test("the private feed: read with its secret alone, the same address until revoked, then a 404 and a new address")
    func feed() async throws {
        try await RoutingDatabase.with { db in
            let world = try await Self.world(db)
            _ = try await db.timetable.importTimetable(.init(format: "ical", text: world.calendar()), now: db.clock.now())
            let student = UUID()
            _ = try await db.timetable.setModules([world.code], user: student)
            let url = try await db.timetable.feedURL(user: student, now: db.clock.now())
            #expect(try await db.timetable.feedURL(user: student, now: db.clock.now()) == url)
            let file = String(url.split(separator: "/").last!)
            let feed = try await db.timetable.feed(secret: file, now: db.clock.now())
            #expect(feed.calendar.hasPrefix("BEGIN:VCALENDAR\r\n"))
            #expect(feed.calendar.contains("LOCATION:\(world.hall.name)"))
            #expect(feed.calendar.components(separatedBy: "BEGIN:VEVENT").count - 1 >= 10)
            try await db.timetable.revokeFeed(user: student)
            do {
                _ = try await db.timetable.feed(secret: file, now: db.clock.now())
                Issue.record("a revoked feed was served")
            } catch let error as ServiceError {
                #expect(error.code == .notFound)
            }
            let renewed = try await db.timetable.feedURL(user: student, now: db.clock.now())
            #expect(renewed != url)
            await #expect(throws: ServiceError.self) {
                _ = try await db.timetable.feed(secret: "not-a-secret.ics", now: db.clock.now())
            }
        }
    }

    @Test("the CSV import matches venues by name, and re-importing it changes nothing")
    func csv() async throws {
        try await RoutingDatabase.with { db in
            let world = try await Self.world(db)
            let day = String(world.monday.description.prefix(10))
            let text = """
                module,name,faculty,kind,days,start,end,location,from,until,except,uid
                \(world.code),CSV Module,Humanities,lecture,TU;TH,10:30,11:20,"  \(world.hall.name.lowercased())  ",\(day),,,
                \(world.code),CSV Module,Humanities,practical,FR,14:30,17:20,Nowhere \(world.uid),\(day),,,\(world.uid)-prac

                """
            let first = try await db.timetable.importTimetable(.init(format: "csv", text: text), now: db.clock.now())
            #expect(first.meetingsCreated == 2)
            #expect(first.unmatchedLocations == ["Nowhere \(world.uid)"])
            let again = try await db.timetable.importTimetable(.init(format: "csv", text: text), now: db.clock.now())
            #expect(again.meetingsUnchanged == 2 && again.meetingsCreated == 0 && again.meetingsUpdated == 0)
            let meetings = try await db.timetable.store.meetings(module: world.code)
            #expect(meetings.first { $0.kind == "lecture" }?.venueId?.uuidString.lowercased() == world.hall.id)
            #expect(meetings.allSatisfy { $0.moduleName == "CSV Module" })
        }
    }

    @Test("next class: the route to its venue and when to leave (injected clock), late when too close, 404 past 12 h")
    func nextClass() async throws {
        try await RoutingDatabase.with { db in
            let sample = SampleCampus.venue("IT 4-1")
            let hall = try await db.venues.create(
                .init(
                    name: "Next Class Hall \(UUID().uuidString.prefix(8))", kind: "lecture_hall", level: sample.level,
                    lat: sample.latitude, lon: sample.longitude),
                id: UUID(), now: db.clock.now())
            let state = CampusState()
            state.install(SampleCampus.campus)
            let navigator = Navigator(state: state)
            // The clock reads 12:00 UTC, 14:00 on campus; the class is at 14:30 campus time today
            // and at 08:00 the day after tomorrow (beyond 12 hours).
            let today = LocalDateTime.at(db.clock.now(), in: Self.zone)
            #expect(today.hour == 14)
            let day = TimetableTests.basic(today).prefix(8)
            let later = TimetableTests.basic(today.on(day: today.dayNumber + 2)).prefix(8)
            let code = Self.moduleCode()
            let uid = UUID().uuidString
            let calendar = """
                BEGIN:VCALENDAR
                BEGIN:VEVENT
                UID:\(uid)-a
                DTSTART:\(day)T143000
                DTEND:\(day)T152000
                SUMMARY:\(code) Next Class - Lecture
                LOCATION:\(hall.name)
                END:VEVENT
                BEGIN:VEVENT
                UID:\(uid)-b
                DTSTART:\(later)T080000
                DTEND:\(later)T085000
                SUMMARY:\(code) Next Class - Lecture
                LOCATION:\(hall.name)
                END:VEVENT
                END:VCALENDAR
                """
            _ = try await db.timetable.importTimetable(.init(format: "ical", text: calendar), now: db.clock.now())
            let student = UUID()
            _ = try await db.timetable.setModules([code], user: student)
            let library = SampleCampus.venue("Library Study Commons")
            let from = Routing.Point(lat: library.latitude, lon: library.longitude, level: library.level)
            let start = LocalDateTime(String(today.description.prefix(10)) + "T14:30:00")!.instant(in: Self.zone)

            let early = try await db.timetable.nextClass(
                user: student, from: from, profile: .fastest, navigator: navigator, now: db.clock.now())
            #expect(early.occurrence.start == start)
            #expect(early.occurrence.venue?.id == hall.id)
            #expect(early.route.eta > 10)
            #expect(early.leaveAt == Date(timeIntervalSince1970: (start.timeIntervalSince1970 - early.route.eta.rounded(.up)).rounded(.down)))
            #expect(early.spareSeconds == Int(early.leaveAt.timeIntervalSince(db.clock.now())))
            #expect(!early.late)

            db.clock.set(start.addingTimeInterval(-10))
            let close = try await db.timetable.nextClass(
                user: student, from: from, profile: .fastest, navigator: navigator, now: db.clock.now())
            #expect(close.late)
            #expect(close.spareSeconds < 0)

            // After the start, the next one is more than 12 hours away.
            db.clock.set(start.addingTimeInterval(60))
            do {
                _ = try await db.timetable.nextClass(
                    user: student, from: from, profile: .fastest, navigator: navigator, now: db.clock.now())
                Issue.record("a class beyond 12 hours was routed to")
            } catch let error as ServiceError {
                #expect(error.code == .notFound)
                #expect(error.details?["reason"] == .string("no_class"))
            }
            // 12 hours before the second class it is found again.
            var second = today.on(day: today.dayNumber + 2)
            (second.hour, second.minute, second.second) = (8, 0, 0)
            db.clock.set(second.instant(in: Self.zone).addingTimeInterval(-11 * 3600))
            let tomorrow = try await db.timetable.nextClass(
                user: student, from: from, profile: .accessible, navigator: navigator, now: db.clock.now())
            #expect(tomorrow.route.profile == "accessible")
            #expect(tomorrow.spareSeconds > 10 * 3600)
        }
    }

    @Test("attendance: at the venue from start - 10 min until the end counts once, completing a lectures_attended goal")
    func attendance() async throws {
        try await RoutingDatabase.with { db in
            let world = try await Self.world(db)
            let hall = try #require(UUID(uuidString: world.hall.id))
            let today = LocalDateTime.at(db.clock.now(), in: Self.zone)
            let day = TimetableTests.basic(today).prefix(8)
            let code = world.code
            let calendar = """
                BEGIN:VCALENDAR
                BEGIN:VEVENT
                UID:\(world.uid)-attend
                DTSTART:\(day)T143000
                DTEND:\(day)T152000
                SUMMARY:\(code) Attendance - Lecture
                LOCATION:\(world.hall.name)
                END:VEVENT
                END:VCALENDAR
                """
            _ = try await db.timetable.importTimetable(.init(format: "ical", text: calendar), now: db.clock.now())
            let student = UUID()
            _ = try await db.timetable.setModules([code], user: student)
            let goal = try await db.goal("lectures_attended", target: 1, title: "Attend your lectures")
            let start = LocalDateTime(String(today.description.prefix(10)) + "T14:30:00")!.instant(in: Self.zone)
            func attendable(_ offset: TimeInterval) async throws -> [Routing.ClassOccurrence] {
                try await db.timetable.attendable(user: student, venue: hall, now: start.addingTimeInterval(offset))
            }
            #expect(try await attendable(-601).isEmpty)
            #expect(try await attendable(-600).count == 1)
            #expect(try await attendable(50 * 60 - 1).count == 1)
            #expect(try await attendable(50 * 60).isEmpty)
            // Another venue, or a student without the module, attends nothing.
            #expect(try await db.timetable.attendable(user: student, venue: UUID(), now: start).isEmpty)
            #expect(try await db.timetable.attendable(user: UUID(), venue: hall, now: start).isEmpty)

            let occurrence = try #require(try await attendable(0).first)
            let meeting = try #require(UUID(uuidString: occurrence.meetingId))
            let completed = try await db.goals.attend(
                meeting: meeting, start: occurrence.start, user: student, now: start, requestId: nil)
            #expect(completed == [goal.id])
            let again = try await db.goals.attend(
                meeting: meeting, start: occurrence.start, user: student, now: start.addingTimeInterval(60),
                requestId: nil)
            #expect(again.isEmpty)
            let week = try await db.goals.myWeek(user: student, week: db.goals.week(containing: start))
            #expect(week.lecturesAttended == 1)
            #expect(week.goals.first { $0.goal.id == goal.id }?.voucher != nil)
            #expect(try await db.completions(of: goal.id).count == 1)
        }
    }

    @Test("events that concern me come first: my module, my module's faculty, a venue of my classes; then the rest")
    func myEvents() async throws {
        try await RoutingDatabase.with { db in
            let world = try await Self.world(db)
            _ = try await db.timetable.importTimetable(.init(format: "ical", text: world.calendar()), now: db.clock.now())
            let student = UUID()
            _ = try await db.timetable.setModules([world.code], user: student)
            let now = db.clock.now()
            let hall = try #require(UUID(uuidString: world.hall.id))
            func add(_ title: String, hours: Double, venue: UUID? = nil, modules: [String]? = nil, faculties: [String]? = nil)
                async throws -> String
            {
                try await db.events.create(
                    .init(
                        title: title, kind: "cultural", startsAt: now.addingTimeInterval(hours * 3600),
                        endsAt: now.addingTimeInterval(hours * 3600 + 3600), modules: modules, faculties: faculties),
                    venue: venue, id: UUID(), now: now
                ).id
            }
            // Far in the test's own future, before every other test's events of this week.
            let other = try await add("Open day", hours: -0.5)
            let faculty = try await add("Faculty braai", hours: -0.4, faculties: ["  engineering "])
            let module = try await add("Guest lecture", hours: -0.3, modules: [world.code])
            let venue = try await add("Exhibition in the hall", hours: -0.2, venue: hall)
            let reply = try await db.timetable.myEvents(user: student, events: db.events, now: now, limit: 200)
            let ids = reply.items.map(\.event.id)
            let mine = [faculty, module, venue]
            #expect(Array(ids.prefix(3)) == mine)
            #expect(reply.items.prefix(3).allSatisfy { $0.concernsMe })
            #expect(reply.items[1].because == ["module:\(world.code)"])
            #expect(reply.items[2].because == ["venue:\(world.hall.id)"])
            #expect(reply.items[0].because.first?.hasPrefix("faculty:") == true)
            #expect(reply.items.first { $0.event.id == other }?.concernsMe == false)
            let stranger = try await db.timetable.myEvents(user: UUID(), events: db.events, now: now, limit: 200)
            #expect(stranger.items.filter { mine.contains($0.event.id) }.allSatisfy { !$0.concernsMe })
        }
    }
}
