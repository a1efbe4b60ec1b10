import Foundation
import RoutingService
import Testing

/// The timetable's pure rules: weekly recurrence across daylight-saving changes, exceptions,
/// the iCalendar and CSV readers and the feed writer. No I/O, no clock.
@Suite("routing: timetable rules")
struct TimetableRuleTests {
    static let newYork = TimeZone(identifier: "America/New_York")!
    static let london = TimeZone(identifier: "Europe/London")!
    static let johannesburg = TimeZone(identifier: "Africa/Johannesburg")!
    static let utc = TimeZone(identifier: "UTC")!

    static func instant(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    static func local(_ date: Date, _ zone: TimeZone) -> String { LocalDateTime.at(date, in: zone).description }

    @Test("civil day numbers and weekdays agree with known dates")
    func civil() {
        #expect(LocalDateTime.dayNumber(year: 1970, month: 1, day: 1) == 0)
        #expect(LocalDateTime(year: 2026, month: 3, day: 2).weekday == 1)
        #expect(LocalDateTime(year: 2026, month: 3, day: 8).weekday == 7)
        #expect(LocalDateTime(year: 2000, month: 2, day: 29).isValid)
        #expect(!LocalDateTime(year: 2026, month: 2, day: 29).isValid)
        for day in [-800_000, -1, 0, 20_000, 2_000_000] {
            let date = LocalDateTime.civil(day)
            #expect(LocalDateTime.dayNumber(year: date.year, month: date.month, day: date.day) == day)
        }
    }

    @Test("a weekly 09:00 lecture in New York stays at 09:00 local across the spring change (UTC moves an hour)")
    func springForward() {
        let schedule = MeetingSchedule(
            start: LocalDateTime(year: 2026, month: 3, day: 2, hour: 9), zone: Self.newYork, duration: 50 * 60,
            recurrence: WeeklyRecurrence(weekdays: [1], count: 3))
        let all = schedule.occurrences(from: Self.instant("2026-01-01T00:00:00Z"), to: Self.instant("2027-01-01T00:00:00Z"))
        #expect(all.map(\.start) == [
            Self.instant("2026-03-02T14:00:00Z"), Self.instant("2026-03-09T13:00:00Z"),
            Self.instant("2026-03-16T13:00:00Z"),
        ])
        #expect(all.allSatisfy { Self.local($0.start, Self.newYork).hasSuffix("T09:00:00") })
        #expect(all.allSatisfy { $0.end.timeIntervalSince($0.start) == 3000 })
        #expect(schedule.lastEnd == Self.instant("2026-03-16T13:50:00Z"))
    }

    @Test("London in autumn: Mondays and Thursdays at 10:00 across 25 October, with an exception")
    func autumnBack() {
        let cancelled = LocalDateTime(year: 2026, month: 10, day: 29, hour: 10).instant(in: Self.london)
        let schedule = MeetingSchedule(
            start: LocalDateTime(year: 2026, month: 10, day: 19, hour: 10), zone: Self.london, duration: 3600,
            recurrence: WeeklyRecurrence(
                weekdays: [1, 4], until: LocalDateTime(year: 2026, month: 11, day: 2, hour: 23).instant(in: Self.london)),
            exceptions: [cancelled])
        let starts = schedule.occurrences(from: Self.instant("2026-10-01T00:00:00Z"), to: Self.instant("2026-12-01T00:00:00Z"))
            .map(\.start)
        #expect(starts == [
            Self.instant("2026-10-19T09:00:00Z"), Self.instant("2026-10-22T09:00:00Z"),
            Self.instant("2026-10-26T10:00:00Z"), Self.instant("2026-11-02T10:00:00Z"),
        ])
        #expect(!starts.contains(cancelled))
    }

    @Test("times skipped or repeated by a change: the gap is read with the offset before it, a repeat is the first")
    func gapsAndRepeats() {
        // 02:30 does not exist in New York on 2026-03-08: EST's offset gives 07:30Z (03:30 EDT).
        #expect(LocalDateTime(year: 2026, month: 3, day: 8, hour: 2, minute: 30).instant(in: Self.newYork)
            == Self.instant("2026-03-08T07:30:00Z"))
        // 01:30 happens twice on 2026-11-01: the first (EDT) is 05:30Z.
        #expect(LocalDateTime(year: 2026, month: 11, day: 1, hour: 1, minute: 30).instant(in: Self.newYork)
            == Self.instant("2026-11-01T05:30:00Z"))
        // The campus zone has no daylight saving: always UTC+2.
        #expect(LocalDateTime(year: 2026, month: 6, day: 1, hour: 8).instant(in: Self.johannesburg)
            == Self.instant("2026-06-01T06:00:00Z"))
        #expect(LocalDateTime.at(Self.instant("2026-11-01T05:30:00Z"), in: Self.newYork).description
            == "2026-11-01T01:30:00")
    }

    @Test("INTERVAL=2 skips weeks counted from the week start; a window far ahead needs no walk from the start")
    func intervals() {
        let schedule = MeetingSchedule(
            start: LocalDateTime(year: 2026, month: 3, day: 4, hour: 14), zone: Self.utc, duration: 3600,
            recurrence: WeeklyRecurrence(weekdays: [1, 3], interval: 2))
        let starts = schedule.occurrences(from: Self.instant("2026-03-01T00:00:00Z"), to: Self.instant("2026-03-31T00:00:00Z"))
            .map { Self.local($0.start, Self.utc) }
        // Wednesday 4th (Monday 2nd is before the start), then Monday and Wednesday two weeks on...
        #expect(starts == ["2026-03-04T14:00:00", "2026-03-16T14:00:00", "2026-03-18T14:00:00", "2026-03-30T14:00:00"])
        let later = schedule.occurrences(
            from: Self.instant("2126-03-01T00:00:00Z"), to: Self.instant("2126-03-15T00:00:00Z"))
        #expect(later.count == 2)
        #expect(schedule.lastEnd == nil)
    }

    static let sample = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Test//Timetable//EN\r
        BEGIN:VTIMEZONE\r
        TZID:America/New_York\r
        END:VTIMEZONE\r
        BEGIN:VEVENT\r
        UID:cos301-lec@example.edu\r
        DTSTART;TZID=America/New_York:20260302T090000\r
        DTEND;TZID=America/New_York:20260302T095000\r
        RRULE:FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20260320T235959Z\r
        EXDATE;TZID=America/New_York:20260311T090000\r
        SUMMARY:COS 301 Software Engineering - Lecture\r
        LOCATION:IT 4-1\\, Informatorium\r
        X-NAVUP-FACULTY:Engineering\\, Built Environment and IT\r
        BEGIN:VALARM\r
        ACTION:DISPLAY\r
        TRIGGER:-PT10M\r
        END:VALARM\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:cos301-lec@example.edu\r
        RECURRENCE-ID;TZID=America/New_York:20260316T090000\r
        DTSTART;TZID=America/New_York:20260316T140000\r
        DTEND;TZID=America/New_York:20260316T145000\r
        SUMMARY:COS 301 Software Engineering - Lecture\r
        LOCATION:Humanities Auditorium\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:wtw114-tut\r
        DTSTART:20260303T120000\r
        DURATION:PT1H30M\r
        RRULE:FREQ=WEEKLY;COUNT=2\r
        SUMMARY:wtw114\r
        CATEGORIES:TUTORIAL\r
        LOCATION:Somewhere unknown that is a very long location name which the exporter has folded o\r
         ver two lines\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:holiday\r
        DTSTART;VALUE=DATE:20260406\r
        SUMMARY:Easter Monday\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:gone\r
        STATUS:CANCELLED\r
        DTSTART:20260303T120000Z\r
        SUMMARY:ABC 100\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    @Test("iCalendar: zones, BYDAY/UNTIL, EXDATE, a moved meeting, COUNT, DURATION, folding, categories, cancellations")
    func icalendar() throws {
        let parsed = try ICalendarParser(campusZone: Self.johannesburg).parse(Self.sample)
        #expect(parsed.cancelled == ["gone"])
        #expect(parsed.entries.count == 3)
        let lecture = try #require(parsed.entries.first { $0.uid == "cos301-lec@example.edu" })
        #expect(lecture.moduleCode == "COS 301")
        #expect(lecture.moduleName == "Software Engineering")
        #expect(lecture.faculty == "Engineering, Built Environment and IT")
        #expect(lecture.kind == "lecture")
        #expect(lecture.location == "IT 4-1, Informatorium")
        #expect(lecture.line == 7)
        let starts = lecture.schedule.occurrences(
            from: Self.instant("2026-01-01T00:00:00Z"), to: Self.instant("2027-01-01T00:00:00Z")
        ).map { Self.local($0.start, Self.newYork) }
        // 11 March is cancelled (EXDATE), 16 March moved (RECURRENCE-ID); 9 March is after the US change.
        #expect(starts == ["2026-03-02T09:00:00", "2026-03-04T09:00:00", "2026-03-09T09:00:00", "2026-03-18T09:00:00"])
        let moved = try #require(parsed.entries.first { $0.uid.hasPrefix("cos301-lec@example.edu#") })
        #expect(moved.location == "Humanities Auditorium")
        #expect(moved.schedule.occurrences(from: .distantPast, to: .distantFuture).map(\.start)
            == [Self.instant("2026-03-16T18:00:00Z")])
        let tutorial = try #require(parsed.entries.first { $0.uid == "wtw114-tut" })
        #expect(tutorial.moduleCode == "WTW 114")
        #expect(tutorial.moduleName == nil)
        #expect(tutorial.kind == "tutorial")
        #expect(tutorial.location.hasSuffix("folded over two lines"))
        // A floating time is in the campus zone (UTC+2).
        #expect(tutorial.schedule.occurrences(from: .distantPast, to: .distantFuture).map(\.start)
            == [Self.instant("2026-03-03T10:00:00Z"), Self.instant("2026-03-10T10:00:00Z")])
        #expect(tutorial.schedule.duration == 5400)
    }

    @Test("iCalendar errors name the line and the property")
    func icalendarErrors() {
        func error(_ body: String) -> TimetableFormatError? {
            let text = "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\nSUMMARY:COS 301\n\(body)\nEND:VEVENT\nEND:VCALENDAR\n"
            do {
                _ = try ICalendarParser(campusZone: Self.johannesburg).parse(text)
                return nil
            } catch {
                return error
            }
        }
        let daily = error("DTSTART:20260302T090000\nDTEND:20260302T100000\nRRULE:FREQ=DAILY")
        #expect(daily?.line == 7)
        #expect(daily?.field == "RRULE:FREQ")
        #expect(error("DTSTART;TZID=Mars/Olympus:20260302T090000\nDTEND:20260302T100000")?.field == "DTSTART;TZID")
        #expect(error("DTSTART:20260230T090000\nDTEND:20260302T100000")?.line == 5)
        #expect(error("DTSTART:20260302T090000")?.field == "DTEND")
        #expect(error("DTSTART:20260302T090000\nDTEND:20260302T100000\nRRULE:FREQ=WEEKLY;BYDAY=1MO")?.field == "RRULE:BYDAY")
        #expect(error("DTSTART:20260302T090000\nDTEND:20260302T080000")?.field == "DTEND")
        #expect(error("no colon here")?.line == 5)
        do {
            _ = try ICalendarParser(campusZone: Self.johannesburg).parse("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\nDTSTART:20260302T090000\nDTEND:20260302T100000\nSUMMARY:Team meeting\nEND:VEVENT\nEND:VCALENDAR")
            Issue.record("a summary without a module code was taken")
        } catch {
            #expect(error.field == "SUMMARY")
            #expect(error.line == 6)
        }
    }

    @Test("CSV: columns in any order, quoted fields, days, term dates and exceptions in the campus zone")
    func csv() throws {
        let text = """
            kind,module,name,days,start,end,location,from,until,except
            lecture,cos301,"Software Engineering, Advanced",MO;Wednesday,08:30,09:20,IT 4-1,2026-02-11,2026-02-25,2026-02-16
            practical,WTW 114,,FR,14:30,17:20,"Engineering Lecture Hall 1",2026-02-09,,

            """
        let parsed = try TimetableCSV(campusZone: Self.johannesburg).parse(text)
        #expect(parsed.entries.count == 2)
        let lecture = parsed.entries[0]
        #expect(lecture.moduleCode == "COS 301")
        #expect(lecture.moduleName == "Software Engineering, Advanced")
        #expect(lecture.line == 2)
        let starts = lecture.schedule.occurrences(from: .distantPast, to: Self.instant("2027-01-01T00:00:00Z"))
            .map { Self.local($0.start, Self.johannesburg) }
        // From Wednesday the 11th; Monday the 16th is an exception; until the 25th inclusive.
        #expect(starts == ["2026-02-11T08:30:00", "2026-02-18T08:30:00", "2026-02-23T08:30:00", "2026-02-25T08:30:00"])
        #expect(parsed.entries[1].kind == "practical")
        #expect(parsed.entries[1].schedule.recurrence?.until == nil)
        #expect(parsed.entries[1].uid != lecture.uid)
        // The same rows give the same UIDs (re-import matches them).
        #expect(try TimetableCSV(campusZone: Self.johannesburg).parse(text).entries.map(\.uid) == parsed.entries.map(\.uid))
    }

    @Test("CSV errors name the line and the column")
    func csvErrors() {
        func error(_ text: String) -> TimetableFormatError? {
            do {
                _ = try TimetableCSV(campusZone: Self.johannesburg).parse(text)
                return nil
            } catch { return error }
        }
        let header = "module,kind,days,start,end,location,from\n"
        #expect(error(header + "COS 301,lecture,MO,08:30,09:20,IT 4-1,2026-02-09\nCOS 301,seminar,MO,08:30,09:20,IT 4-1,2026-02-09\n")
            == TimetableFormatError(line: 3, field: "kind", "kind is lecture, tutorial or practical"))
        #expect(error(header + "COS 301,lecture,XX,08:30,09:20,IT 4-1,2026-02-09")?.field == "days")
        #expect(error(header + "COS 301,lecture,MO,09:30,09:20,IT 4-1,2026-02-09")?.field == "end")
        #expect(error(header + "COS 301,lecture,MO,8h,09:20,IT 4-1,2026-02-09")?.field == "start")
        #expect(error(header + "COS 301,lecture,MO,08:30,09:20,IT 4-1")?.field == "row")
        #expect(error("module,kind,days,start,end,location\n")?.field == "from")
        #expect(error("module,colour\n")?.field == "header")
        #expect(error(header + "\"COS 301,lecture,MO,08:30,09:20,IT 4-1,2026-02-09")?.line == 2)
    }

    @Test("the feed is valid iCalendar: escaped, folded at 75 octets, and read back by the parser")
    func feed() throws {
        let start = Self.instant("2026-03-02T06:30:00Z")
        let text = ICalendarWriter.calendar(
            [
                .init(
                    uid: "m1-1", start: start, end: start.addingTimeInterval(3000),
                    summary: "COS 301 Software Engineering; Design, Testing and Maintenance of Large Systems (lecture)",
                    location: "IT 4-1", categories: "LECTURE")
            ], name: "NavUP timetable", stamp: start)
        #expect(text.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 75 })
        #expect(text.contains("DTSTART:20260302T063000Z\r\n"))
        let parsed = try ICalendarParser(campusZone: Self.johannesburg).parse(text)
        let entry = try #require(parsed.entries.first)
        #expect(entry.moduleCode == "COS 301")
        #expect(entry.kind == "lecture")
        #expect(entry.schedule.occurrences(from: .distantPast, to: .distantFuture).map(\.start) == [start])
    }

    @Test("the bundled sample timetable: at least 30 modules and 150 weekly meetings, all at sample campus venues")
    func sample() throws {
        let parsed = try TimetableCSV(campusZone: Self.johannesburg).parse(try RoutingService.sampleTimetable())
        #expect(Set(parsed.entries.map(\.moduleCode)).count >= 30)
        #expect(parsed.entries.count >= 150)
        let names = Set(SampleCampus.map.venues.map(\.name))
        #expect(parsed.entries.allSatisfy { names.contains($0.location) })
        #expect(Set(parsed.entries.map(\.uid)).count == parsed.entries.count)
        // No venue holds two meetings at once in a week of term.
        let week = parsed.entries.flatMap { entry in
            entry.schedule.occurrences(
                from: Self.instant("2026-03-02T00:00:00Z"), to: Self.instant("2026-03-09T00:00:00Z")
            ).map { (entry.location, $0) }
        }
        #expect(week.count == parsed.entries.count)
        for (index, (venue, occurrence)) in week.enumerated() {
            #expect(!week[(index + 1)...].contains { $0.0 == venue && $0.1.start < occurrence.end && occurrence.start < $0.1.end })
        }
    }

    @Test("class changes: a slot gone is moved to the nearest new one within a week, else cancelled; new slots alone are no change")
    func classChanges() {
        let monday = Self.instant("2026-03-02T06:30:00Z")
        func slot(_ days: Double, hours: Double = 0, place: String = "hall") -> ClassChanges.Slot {
            let start = monday.addingTimeInterval(days * 86_400 + hours * 3600)
            return .init(start: start, end: start.addingTimeInterval(3000), place: place, placeName: place.uppercased())
        }
        let week = [slot(0), slot(2)]
        #expect(ClassChanges.diff(old: week, new: week).isEmpty)
        #expect(ClassChanges.diff(old: week, new: [slot(0)]) == [.init(from: slot(2), to: nil)], "an exception")
        #expect(
            ClassChanges.diff(old: week, new: [slot(0, hours: 1), slot(2, hours: 1)])
                == [.init(from: slot(0), to: slot(0, hours: 1)), .init(from: slot(2), to: slot(2, hours: 1))],
            "the whole series an hour later: each occurrence moved to its own")
        #expect(
            ClassChanges.diff(old: week, new: [slot(0), slot(2, place: "lab")])
                == [.init(from: slot(2), to: slot(2, place: "lab"))], "another room is a move")
        #expect(ClassChanges.diff(old: [slot(0)], new: [slot(1)]) == [.init(from: slot(0), to: slot(1))], "Monday to Tuesday")
        #expect(ClassChanges.diff(old: [slot(0)], new: [slot(8)]) == [.init(from: slot(0), to: nil)], "more than a week apart")
        #expect(ClassChanges.diff(old: [], new: week).isEmpty, "added classes are not announced")
        // A series moved a day later with one occurrence dropped: each pairs with its own, not
        // with the next one left (the dropped one is cancelled).
        let two = [slot(0), slot(2), slot(7), slot(9)]
        #expect(
            ClassChanges.diff(old: two, new: [slot(1), slot(8), slot(10)])
                == [
                    .init(from: slot(0), to: slot(1)), .init(from: slot(2), to: nil), .init(from: slot(7), to: slot(8)),
                    .init(from: slot(9), to: slot(10)),
                ])
        #expect(ClassChanges.series(ofUID: "abc#20260302T083000") == "abc")
        #expect(ClassChanges.series(ofUID: "abc") == "abc")
        #expect(ClassChanges.local(monday, in: Self.johannesburg) == "2026-03-02 08:30")
    }

    @Test("class notices: a series moved the same way is one notice from its first occurrence; a single move stays single")
    func seriesNotices() {
        // Monday 2026-03-02 08:30 in Johannesburg; a Monday and Wednesday lecture, four weeks.
        let monday = Self.instant("2026-03-02T06:30:00Z")
        let zone = Self.johannesburg
        func slot(_ days: Double, hours: Double = 0, place: String = "hall") -> ClassChanges.Slot {
            let start = monday.addingTimeInterval(days * 86_400 + hours * 3600)
            return .init(start: start, end: start.addingTimeInterval(3000), place: place, placeName: place.uppercased())
        }
        let days: [Double] = [0, 2, 7, 9, 14, 16, 21, 23]
        let old = days.map { slot($0) }
        // The horizon takes in the next Monday's lecture, not the Wednesday's.
        let horizon = monday.addingTimeInterval(7 * 86_400 + 3600)
        func notices(_ new: [ClassChanges.Slot]) -> [ClassChanges.Notice] {
            ClassChanges.notices(old: old, new: new, horizon: horizon, zone: zone)
        }

        // Every lecture to the lab: one notice from Monday, counting the eight.
        #expect(
            notices((days + [28, 30]).map { slot($0, place: "lab") })
                == [.series(first: .init(from: slot(0), to: slot(0, place: "lab")), count: 8)])
        // From the second week on, an hour later: one notice, from the Monday of that week (within
        // the horizon).
        let later = days.map { $0 < 7 ? slot($0) : slot($0, hours: 1) } + [slot(28, hours: 1)]
        #expect(notices(later) == [.series(first: .init(from: slot(7), to: slot(7, hours: 1)), count: 6)])
        // Only the Mondays move to Tuesdays (the Wednesdays stay): still a series.
        let tuesdays = days.map { $0.truncatingRemainder(dividingBy: 7) == 0 ? slot($0 + 1) : slot($0) } + [slot(29)]
        #expect(notices(tuesdays) == [.series(first: .init(from: slot(0), to: slot(1)), count: 4)])
        // One occurrence moved (RECURRENCE-ID): one single notice.
        var one = old
        one[1] = slot(2, place: "lab")
        #expect(notices(one) == [.single(.init(from: slot(2), to: slot(2, place: "lab")))])
        // Two Wednesdays moved the same way with one unmoved between them: not a series.
        var two = old
        two[1] = slot(2, place: "lab")
        two[5] = slot(16, place: "lab")
        #expect(notices(two) == [.single(.init(from: slot(2), to: slot(2, place: "lab")))], "the second is too far")
        // Moved for two weeks, then back: the moves are told one by one (within the horizon).
        let twoWeeks = days.map { $0 < 14 ? slot($0, place: "lab") : slot($0) }
        #expect(
            notices(twoWeeks) == [
                .single(.init(from: slot(0), to: slot(0, place: "lab"))),
                .single(.init(from: slot(2), to: slot(2, place: "lab"))),
                .single(.init(from: slot(7), to: slot(7, place: "lab"))),
            ])
        // A series moved with one later occurrence cancelled: the series, and the cancellation on
        // its own when it is within the horizon.
        let gap = days.filter { $0 != 2 }.map { slot($0, place: "lab") } + [slot(28, place: "lab")]
        #expect(
            notices(gap) == [
                .series(first: .init(from: slot(0), to: slot(0, place: "lab")), count: 7),
                .single(.init(from: slot(2), to: nil)),
            ])
        // A series whose first move is beyond the horizon is not told now.
        let farOff = days.map { $0 < 14 ? slot($0) : slot($0, place: "lab") } + [slot(28, place: "lab")]
        #expect(notices(farOff).isEmpty)
    }

    /// A calendar of one weekly Monday 08:30 lecture in `tzid`, with `zones` (VTIMEZONE blocks)
    /// before or after the event.
    static func zoned(_ tzid: String, zones: String, zonesFirst: Bool = true) -> String {
        let event = """
            BEGIN:VEVENT
            UID:zoned
            DTSTART;TZID=\(tzid):20260302T083000
            DTEND;TZID=\(tzid):20260302T092000
            RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=40
            SUMMARY:COS 301 Software Engineering - Lecture
            END:VEVENT
            """
        return "BEGIN:VCALENDAR\nVERSION:2.0\n" + (zonesFirst ? zones + "\n" + event : event + "\n" + zones)
            + "\nEND:VCALENDAR\n"
    }

    static let southAfrica = """
        BEGIN:VTIMEZONE
        TZID:South Africa Standard Time
        BEGIN:STANDARD
        DTSTART:16010101T000000
        TZOFFSETFROM:+0200
        TZOFFSETTO:+0200
        END:STANDARD
        END:VTIMEZONE
        """

    static let easternWithLocation = """
        BEGIN:VTIMEZONE
        TZID:Eastern Standard Time
        X-LIC-LOCATION:America/New_York
        BEGIN:STANDARD
        DTSTART:16011104T020000
        RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11
        TZOFFSETFROM:-0400
        TZOFFSETTO:-0500
        END:STANDARD
        BEGIN:DAYLIGHT
        DTSTART:16010311T020000
        RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3
        TZOFFSETFROM:-0500
        TZOFFSETTO:-0400
        END:DAYLIGHT
        END:VTIMEZONE
        """

    @Test("VTIMEZONE: a custom TZID is its X-LIC-LOCATION's IANA zone, else its one fixed offset, wherever the block is")
    func vtimezone() throws {
        let parser = ICalendarParser(campusZone: Self.utc)
        for zonesFirst in [true, false] {
            let fixed = try parser.parse(Self.zoned("South Africa Standard Time", zones: Self.southAfrica, zonesFirst: zonesFirst))
            let starts = try #require(fixed.entries.first).schedule.occurrences(
                from: Self.instant("2026-03-01T00:00:00Z"), to: Self.instant("2026-03-17T00:00:00Z")).map(\.start)
            #expect(starts == [Self.instant("2026-03-02T06:30:00Z"), Self.instant("2026-03-09T06:30:00Z"), Self.instant("2026-03-16T06:30:00Z")])
        }
        // The New York rules apply: 08:30 local is 13:30 UTC before 8 March 2026 and 12:30 after.
        let eastern = try parser.parse(Self.zoned("Eastern Standard Time", zones: Self.easternWithLocation))
        let schedule = try #require(eastern.entries.first).schedule
        #expect(schedule.zone.identifier == "America/New_York")
        #expect(
            schedule.occurrences(from: Self.instant("2026-03-01T00:00:00Z"), to: Self.instant("2026-03-10T00:00:00Z"))
                .map(\.start) == [Self.instant("2026-03-02T13:30:00Z"), Self.instant("2026-03-09T12:30:00Z")])
        // A globally unique, path-like TZID ending in an IANA name needs no block.
        let path = try parser.parse(Self.zoned("/citadel.org/20190101_1/Africa/Johannesburg", zones: ""))
        #expect(try #require(path.entries.first).schedule.zone.identifier == "Africa/Johannesburg")
    }

    @Test("VTIMEZONE rules without an IANA name are evaluated: the zone that follows them (Outlook's New York, London)")
    func vtimezoneRules() throws {
        let parser = ICalendarParser(campusZone: Self.utc)
        // Outlook's Eastern Standard Time: second Sunday of March, first of November.
        let rulesOnly = Self.easternWithLocation.replacingOccurrences(of: "X-LIC-LOCATION:America/New_York\n", with: "")
        for zonesFirst in [true, false] {
            let eastern = try parser.parse(Self.zoned("Eastern Standard Time", zones: rulesOnly, zonesFirst: zonesFirst))
            let schedule = try #require(eastern.entries.first).schedule
            #expect(
                schedule.occurrences(from: Self.instant("2026-03-01T00:00:00Z"), to: Self.instant("2026-03-10T00:00:00Z"))
                    .map(\.start) == [Self.instant("2026-03-02T13:30:00Z"), Self.instant("2026-03-09T12:30:00Z")],
                "\(schedule.zone.identifier)")
            let november = schedule.occurrences(
                from: Self.instant("2026-10-26T00:00:00Z"), to: Self.instant("2026-11-09T00:00:00Z")
            ).map(\.start)
            #expect(november == [Self.instant("2026-10-26T12:30:00Z"), Self.instant("2026-11-02T13:30:00Z")])
        }
        // Outlook's GMT Standard Time: the last Sunday of March at 01:00, of October at 02:00.
        let london = """
            BEGIN:VTIMEZONE
            TZID:GMT Standard Time
            BEGIN:STANDARD
            DTSTART:16011028T020000
            RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
            TZOFFSETFROM:+0100
            TZOFFSETTO:+0000
            END:STANDARD
            BEGIN:DAYLIGHT
            DTSTART:16010325T010000
            RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3
            TZOFFSETFROM:+0000
            TZOFFSETTO:+0100
            END:DAYLIGHT
            END:VTIMEZONE
            """
        let gmt = try parser.parse(Self.zoned("GMT Standard Time", zones: london))
        let schedule = try #require(gmt.entries.first).schedule
        // 08:30 local: 08:30 UTC until 29 March 2026, 07:30 UTC after; back on 25 October.
        #expect(
            schedule.occurrences(from: Self.instant("2026-03-22T00:00:00Z"), to: Self.instant("2026-04-01T00:00:00Z"))
                .map(\.start) == [Self.instant("2026-03-23T08:30:00Z"), Self.instant("2026-03-30T07:30:00Z")])
        #expect(
            schedule.occurrences(from: Self.instant("2026-10-18T00:00:00Z"), to: Self.instant("2026-10-28T00:00:00Z"))
                .map(\.start) == [Self.instant("2026-10-19T07:30:00Z"), Self.instant("2026-10-26T08:30:00Z")])
    }

    @Test("VTIMEZONE errors: rules no IANA zone follows, or a TZID no block defines, name the line that uses it")
    func vtimezoneErrors() {
        let parser = ICalendarParser(campusZone: Self.utc)
        // Daylight saving from the third Sunday of April to the third of September: no IANA zone.
        let rulesOnly = Self.easternWithLocation.replacingOccurrences(of: "X-LIC-LOCATION:America/New_York\n", with: "")
            .replacingOccurrences(of: "BYDAY=1SU;BYMONTH=11", with: "BYDAY=3SU;BYMONTH=9")
            .replacingOccurrences(of: "BYDAY=2SU;BYMONTH=3", with: "BYDAY=3SU;BYMONTH=4")
        do {
            _ = try parser.parse(Self.zoned("Eastern Standard Time", zones: rulesOnly))
            Issue.record("a zone with daylight rules no IANA zone follows was taken")
        } catch {
            // VCALENDAR, VERSION, then 15 lines of VTIMEZONE: the event's DTSTART is line 20.
            #expect(error.line == 20)
            #expect(error.field == "DTSTART;TZID")
            #expect(error.message.contains("line 3"), "names the VTIMEZONE's line")
            #expect(error.message.contains("daylight-saving"))
        }
        do {
            _ = try parser.parse(Self.zoned("Nowhere Standard Time", zones: Self.southAfrica))
            Issue.record("an undefined TZID was taken")
        } catch {
            #expect(error.line == 13)
            #expect(error.field == "DTSTART;TZID")
            #expect(error.message.contains("no VTIMEZONE"))
        }
        do {
            _ = try parser.parse(
                Self.zoned(
                    "South Africa Standard Time",
                    zones: Self.southAfrica.replacingOccurrences(of: "TZOFFSETTO:+0200", with: "TZOFFSETTO:2 hours")))
            Issue.record("a bad offset was taken")
        } catch {
            #expect(error.line == 8)
            #expect(error.field == "TZOFFSETTO")
        }
    }
}
