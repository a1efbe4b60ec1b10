import Foundation
import Testing

/// NavUP's timetable through the gateway, with the real processes and the real clock: import,
/// modules, the timetable, the private feed revoked, the next class, and attendance by locate.
extension RoutingHTTPTests {
    /// `YYYYMMDDTHHMMSSZ`.
    static func icsUTC(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d%02d%02dT%02d%02d%02dZ", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!,
            parts.second!)
    }

    @Test("timetable: import (403/401/400/idempotent), modules, timetable, feed without a token, revoked, next class, attendance")
    func timetable() async throws {
        let system = try await startRouting()
        defer { _ = system.stopBlocking() }
        let student = try await token(system)
        let admin = try await token(system, roles: ["admin"])
        // A rooftop hall with its own access point (a locate there is at the hall), and the
        // Humanities Auditorium of the sample campus.
        let bytes = (0..<4).map { _ in String(format: "%02x", Int.random(in: 0..<256)) }.joined(separator: ":")
        let bssid = "02:cc:\(bytes)"
        let (lat, lon) = (-25.7551 + Double.random(in: 0..<0.0004), 28.2341)
        let point = #"{"name": "class test AP", "lat": \#(lat), "lon": \#(lon), "level": 7, "capacity": 40}"#
        #expect(
            await send(system, "PUT", "/v1/admin/campus/access-points/\(bssid)", body: point, token: admin)?.status
                == 200)
        let hallName = "Roof Hall \(UUID().uuidString.prefix(6))"
        let hall = #"{"name": "\#(hallName)", "kind": "lecture_hall", "level": 7, "lat": \#(lat), "lon": \#(lon)}"#
        let createdHall = await send(system, "POST", "/v1/admin/campus/venues", body: hall, token: admin)
        let hallId = try #require(json(createdHall?.body)["id"] as? String, "\(createdHall?.body ?? "")")
        defer {
            _ = HTTP.request(
                port: system.httpPort, method: "DELETE", path: "/v1/admin/campus/venues/\(hallId)",
                headers: ["Authorization": "Bearer \(admin)"])
            _ = HTTP.request(
                port: system.httpPort, method: "DELETE", path: "/v1/admin/campus/access-points/\(bssid)",
                headers: ["Authorization": "Bearer \(admin)"])
        }
        let letters = (0..<5).map { _ in String(UnicodeScalar(UInt8.random(in: 65...90))) }.joined()
        let code = "\(letters) \(Int.random(in: 100...999))"
        let uid = UUID().uuidString
        let now = Date()
        let calendar = [
            "BEGIN:VCALENDAR", "VERSION:2.0",
            "BEGIN:VEVENT", "UID:\(uid)-now", "DTSTART:\(Self.icsUTC(now.addingTimeInterval(-300)))",
            "DTEND:\(Self.icsUTC(now.addingTimeInterval(2700)))", "SUMMARY:\(code) HTTP Testing - Lecture",
            "LOCATION:\(hallName)", "END:VEVENT",
            "BEGIN:VEVENT", "UID:\(uid)-soon", "DTSTART:\(Self.icsUTC(now.addingTimeInterval(7200)))",
            "DTEND:\(Self.icsUTC(now.addingTimeInterval(10_200)))", "SUMMARY:\(code) HTTP Testing",
            "CATEGORIES:TUTORIAL", "LOCATION:Humanities Auditorium", "END:VEVENT",
            "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        let path = "/v1/admin/campus/timetable"
        #expect(await send(system, "POST", path, body: calendar, contentType: "text/calendar")?.status == 401)
        #expect(
            await send(system, "POST", path, body: calendar, token: student, contentType: "text/calendar")?.status
                == 403)
        let imported = await send(system, "POST", path, body: calendar, token: admin, contentType: "text/calendar")
        #expect(imported?.status == 200, "\(imported?.body ?? "")")
        #expect(json(imported?.body)["meetingsCreated"] as? Int == 2)
        #expect((json(imported?.body)["unmatchedLocations"] as? [String]) == [])
        let again = await send(system, "POST", path, body: calendar, token: admin, contentType: "text/calendar")
        #expect(json(again?.body)["meetingsUnchanged"] as? Int == 2 && json(again?.body)["meetingsCreated"] as? Int == 0)
        let broken = calendar.replacingOccurrences(of: "SUMMARY:\(code) HTTP Testing\r\n", with: "SUMMARY:Tea\r\n")
        let refused = await send(system, "POST", path, body: broken, token: admin, contentType: "text/calendar")
        #expect(refused?.status == 400)
        let details = json(refused?.body)["details"] as? [String: Any]
        #expect(details?["line"] as? Int == 14 && details?["field"] as? String == "SUMMARY", "\(refused?.body ?? "")")
        let csv = "module,kind,days,start,end,location,from\n\(code),practical,FR,14:30,17:20,Sports Hall,2026-01-05\n"
        let fromCSV = await send(system, "POST", path, body: csv, token: admin, contentType: "text/csv")
        #expect(fromCSV?.status == 200 && json(fromCSV?.body)["meetingsCreated"] as? Int == 1, "\(fromCSV?.body ?? "")")

        #expect(await system.send("PUT", "/v1/me/modules", json: #"{"codes": ["\#(code)"]}"#)?.status == 401)
        let unknown = await send(system, "PUT", "/v1/me/modules", body: #"{"codes": ["QQQQQ 999"]}"#, token: student)
        #expect(unknown?.status == 400 && unknown?.body.contains("QQQQQ 999") == true)
        let set = await send(
            system, "PUT", "/v1/me/modules", body: #"{"codes": ["\#(code.lowercased())"]}"#, token: student)
        #expect(set?.status == 200 && (json(set?.body)["codes"] as? [String]) == [code], "\(set?.body ?? "")")

        let table = await send(system, "GET", "/v1/me/timetable", token: student)
        #expect(table?.status == 200, "\(table?.body ?? "")")
        let items = json(table?.body)["items"] as? [[String: Any]] ?? []
        #expect(items.filter { $0["moduleCode"] as? String == code }.count >= 2)
        #expect((items.first?["venue"] as? [String: Any])?["id"] as? String == hallId)
        #expect(await send(system, "GET", "/v1/me/timetable?from=tomorrow", token: student)?.status == 400)
        let feedURL = try #require(json(table?.body)["feedUrl"] as? String)
        let file = try #require(feedURL.split(separator: "/").last.map(String.init))
        let feed = await system.get("/v1/timetables/\(file)")
        #expect(feed?.status == 200)
        #expect(feed?.body.hasPrefix("BEGIN:VCALENDAR") == true && feed?.body.contains(hallName) == true)
        #expect(await send(system, "DELETE", "/v1/me/timetable/feed", token: student)?.status == 204)
        #expect(await system.get("/v1/timetables/\(file)")?.status == 404)
        let renewed = json(await send(system, "GET", "/v1/me/timetable", token: student)?.body)["feedUrl"] as? String
        #expect(renewed != nil && renewed != feedURL)

        // An event for the module concerns the student, and comes first.
        let soon = Date().addingTimeInterval(1800).formatted(.iso8601)
        let later = Date().addingTimeInterval(5400).formatted(.iso8601)
        let event =
            #"{"title": "Exam briefing \#(uid)", "kind": "cultural", "startsAt": "\#(soon)", "endsAt": "\#(later)", "modules": ["\#(code)"]}"#
        let createdEvent = await send(system, "POST", "/v1/admin/campus/events", body: event, token: admin)
        #expect(createdEvent?.status == 201, "\(createdEvent?.body ?? "")")
        #expect((json(createdEvent?.body)["modules"] as? [String]) == [code])
        if let eventId = json(createdEvent?.body)["id"] as? String {
            defer {
                _ = HTTP.request(
                    port: system.httpPort, method: "DELETE", path: "/v1/admin/campus/events/\(eventId)",
                    headers: ["Authorization": "Bearer \(admin)"])
            }
            #expect(await system.get("/v1/me/events")?.status == 401)
            let mine = await send(system, "GET", "/v1/me/events?limit=200", token: student)
            let first = (json(mine?.body)["items"] as? [[String: Any]])?.first
            #expect((first?["event"] as? [String: Any])?["id"] as? String == eventId, "\(mine?.body ?? "")")
            #expect(first?["concernsMe"] as? Bool == true)
        }

        // The next class is the tutorial in two hours (the lecture has started).
        let from = try await venueId(system, "Merensky%20Library")
        let next = await send(
            system, "POST", "/v1/campus/routes/next-class", body: #"{"from": {"venueId": "\#(from)"}}"#,
            token: student)
        #expect(next?.status == 200, "\(next?.body ?? "")")
        let occurrence = json(next?.body)["occurrence"] as? [String: Any]
        #expect(occurrence?["kind"] as? String == "tutorial")
        #expect(json(next?.body)["late"] as? Bool == false)
        let nobody = try await token(system)
        #expect(
            await send(
                system, "POST", "/v1/campus/routes/next-class", body: #"{"from": {"venueId": "\#(from)"}}"#,
                token: nobody)?.status == 404)

        // Located at the hall during the lecture: attended, completing the week's goal.
        let goal =
            #"{"title": "Attend \#(UUID().uuidString.prefix(6))", "metric": "lectures_attended", "target": 1, "reward": "a coffee"}"#
        let goalId = try #require(
            json(await send(system, "POST", "/v1/admin/campus/goals", body: goal, token: admin)?.body)["id"] as? String)
        defer {
            _ = HTTP.request(
                port: system.httpPort, method: "DELETE", path: "/v1/admin/campus/goals/\(goalId)",
                headers: ["Authorization": "Bearer \(admin)"])
        }
        let scan = #"{"scan": [{"bssid": "\#(bssid)", "rssi": -42}]}"#
        #expect(await send(system, "POST", "/v1/campus/locate", body: scan, token: student)?.status == 200)
        let week = json(await send(system, "GET", "/v1/me/goals", token: student)?.body)
        #expect(week["lecturesAttended"] as? Int == 1, "\(week)")
        let progress = (week["goals"] as? [[String: Any]])?.first {
            ($0["goal"] as? [String: Any])?["id"] as? String == goalId
        }
        #expect(progress?["completed"] as? Bool == true && (progress?["voucher"] as? [String: Any]) != nil)

        // Admins list and delete modules (the meetings and enrolments go with them).
        #expect(await send(system, "GET", "/v1/admin/campus/modules", token: student)?.status == 403)
        let modules = await send(system, "GET", "/v1/admin/campus/modules", token: admin)
        let listed = (json(modules?.body)["items"] as? [[String: Any]])?.first { $0["code"] as? String == code }
        #expect(listed?["meetings"] as? Int == 3, "\(modules?.body.prefix(300) ?? "")")
        let encoded = code.replacingOccurrences(of: " ", with: "%20")
        #expect(await send(system, "DELETE", "/v1/admin/campus/modules/\(encoded)", token: admin)?.status == 204)
        #expect(await send(system, "DELETE", "/v1/admin/campus/modules/\(encoded)", token: admin)?.status == 404)
        let emptied = json(await send(system, "GET", "/v1/me/timetable", token: student)?.body)
        #expect((emptied["modules"] as? [String]) == [])
    }
}

/// Class notices end to end: routing appends the events, notify (its own process) turns them
/// into inbox items (and pushes) for the enrolled students.
extension RoutingHTTPTests {
    /// The kinds in the caller's inbox, newest first.
    func inboxKinds(_ system: SystemHarness, _ token: String) async -> [String] {
        let inbox = await send(system, "GET", "/v1/me/notifications?limit=50", token: token)
        return (json(inbox?.body)["items"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
    }

    /// Waits up to 30 s for the caller's inbox to hold `count` items of `kind`.
    func waitForInbox(_ system: SystemHarness, _ token: String, kind: String, count: Int) async throws -> [String] {
        let deadline = Date().addingTimeInterval(30)
        var kinds: [String] = []
        while Date() < deadline {
            kinds = await inboxKinds(system, token)
            if kinds.filter({ $0 == kind }).count >= count { return kinds }
            try await Task.sleep(for: .milliseconds(300))
        }
        return kinds
    }

    @Test("class notices: a reminder once at the student's lead, a moved and a cancelled class in the inbox through notify")
    func classNotices() async throws {
        let system = try SystemHarness()
        defer { _ = system.stopBlocking() }
        try system.start("broker")
        try system.start("auth")
        try system.start("routing", extra: ["CAMPUS_REFRESH_MS": "500", "CLASS_REMINDER_POLL_MS": "500"])
        try system.start("notify", extra: ["SMTP_HOST": "none", "EVENTS_POLL_MS": "200"])
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth,routing,notify"])
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(await system.get("/readyz")?.status == 200, "\(system.logs())")
        let (student, other) = (try await token(system), try await token(system))
        let admin = try await token(system, roles: ["admin"])
        let letters = (0..<5).map { _ in String(UnicodeScalar(UInt8.random(in: 65...90))) }.joined()
        let code = "\(letters) \(Int.random(in: 100...999))"
        let uid = UUID().uuidString
        let now = Date()
        func calendar(lectureAt: Date) -> String {
            [
                "BEGIN:VCALENDAR", "VERSION:2.0",
                "BEGIN:VEVENT", "UID:\(uid)-tutorial", "DTSTART:\(Self.icsUTC(now.addingTimeInterval(600)))",
                "DTEND:\(Self.icsUTC(now.addingTimeInterval(3600)))", "SUMMARY:\(code) Notice Testing",
                "CATEGORIES:TUTORIAL", "LOCATION:Humanities Auditorium", "END:VEVENT",
                "BEGIN:VEVENT", "UID:\(uid)-lecture", "DTSTART:\(Self.icsUTC(lectureAt))",
                "DTEND:\(Self.icsUTC(lectureAt.addingTimeInterval(3000)))", "SUMMARY:\(code) Notice Testing - Lecture",
                "LOCATION:Humanities Auditorium", "END:VEVENT",
                "END:VCALENDAR", "",
            ].joined(separator: "\r\n")
        }
        let path = "/v1/admin/campus/timetable"
        let lecture = now.addingTimeInterval(3 * 3600)
        let imported = await send(
            system, "POST", path, body: calendar(lectureAt: lecture), token: admin, contentType: "text/calendar")
        #expect(imported?.status == 200, "\(imported?.body ?? "")")
        for user in [student, other] {
            let set = await send(system, "PUT", "/v1/me/modules", body: #"{"codes": ["\#(code)"]}"#, token: user)
            #expect(set?.status == 200, "\(set?.body ?? "")")
        }

        // Reminders are off until switched on; 5 to 120 minutes.
        #expect(await system.get("/v1/me/class-reminders")?.status == 401)
        let off = await send(system, "GET", "/v1/me/class-reminders", token: student)
        #expect(off?.status == 200 && json(off?.body)["minutesBefore"] is NSNull, "\(off?.body ?? "")")
        #expect(
            await send(system, "PUT", "/v1/me/class-reminders", body: #"{"minutesBefore": 3}"#, token: student)?.status
                == 400)
        let on = await send(system, "PUT", "/v1/me/class-reminders", body: #"{"minutesBefore": 15}"#, token: student)
        #expect(on?.status == 200 && json(on?.body)["minutesBefore"] as? Int == 15, "\(on?.body ?? "")")
        #expect(
            json(await send(system, "GET", "/v1/me/class-reminders", token: student)?.body)["minutesBefore"] as? Int
                == 15)

        // The tutorial starts in 10 minutes, within the 15: one reminder, to the student only.
        var kinds = try await waitForInbox(system, student, kind: "class_reminder", count: 1)
        #expect(kinds.filter { $0 == "class_reminder" }.count == 1, "\(kinds) \(system.logs().suffix(3000))")
        try await Task.sleep(for: .seconds(2))
        #expect(await inboxKinds(system, student).filter { $0 == "class_reminder" }.count == 1, "reminded once")
        #expect(!(await inboxKinds(system, other)).contains("class_reminder"), "the other student did not ask")

        // The lecture moves an hour later: both students hear of it.
        let moved = await send(
            system, "POST", path, body: calendar(lectureAt: lecture.addingTimeInterval(3600)), token: admin,
            contentType: "text/calendar")
        #expect(json(moved?.body)["meetingsUpdated"] as? Int == 1, "\(moved?.body ?? "")")
        for user in [student, other] {
            kinds = try await waitForInbox(system, user, kind: "class_moved", count: 1)
            #expect(kinds.filter { $0 == "class_moved" }.count == 1, "\(kinds)")
        }
        let inbox = json(await send(system, "GET", "/v1/me/notifications?limit=50", token: other)?.body)
        let item = (inbox["items"] as? [[String: Any]])?.first { $0["kind"] as? String == "class_moved" }
        #expect((item?["title"] as? String) == "\(code) lecture moved", "\(inbox)")
        #expect((item?["body"] as? String)?.contains("Humanities Auditorium") == true)

        // The module is deleted: its tutorial and lecture are cancelled for both.
        let encoded = code.replacingOccurrences(of: " ", with: "%20")
        #expect(await send(system, "DELETE", "/v1/admin/campus/modules/\(encoded)", token: admin)?.status == 204)
        for user in [student, other] {
            kinds = try await waitForInbox(system, user, kind: "class_cancelled", count: 2)
            #expect(kinds.filter { $0 == "class_cancelled" }.count == 2, "\(kinds)")
        }
        #expect(
            await send(system, "PUT", "/v1/me/class-reminders", body: #"{"minutesBefore": null}"#, token: student)?
                .status == 200)
        #expect(json(await send(system, "GET", "/v1/me/class-reminders", token: student)?.body)["minutesBefore"] is NSNull)
    }
}
