import Foundation
import Testing

/// TapWater through HTTP: gateway, broker, auth and hydration as real processes; one user's
/// phone and tablet logging offline and meeting at the server.
@Suite("hydration over HTTP (real processes)", .serialized)
struct HydrationHTTPTests {
    func startHydration(notify: Bool = false) async throws -> SystemHarness {
        let system = try SystemHarness()
        try system.start("broker")
        try system.start("auth")
        try system.start("hydration")
        if notify { try system.start("notify", extra: ["SMTP_HOST": "none", "EVENTS_POLL_MS": "200"]) }
        try system.start("gateway", extra: ["READINESS_SERVICES": notify ? "auth,hydration,notify" : "auth,hydration"])
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(await system.get("/readyz")?.status == 200, "\(system.logs())")
        return system
    }

    func json(_ body: String?) -> [String: Any] {
        guard let body, let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
            return [:]
        }
        return object
    }

    func send(_ system: SystemHarness, _ method: String, _ path: String, body: String? = nil, token: String? = nil)
        async -> HTTP.Response?
    {
        let port = system.httpPort
        let headers = token.map { ["Authorization": "Bearer \($0)"] } ?? [:]
        return await offPool {
            HTTP.request(
                port: port, method: method, path: path, body: body, headers: headers, contentType: "application/json")
        }
    }

    /// A new account's access token.
    func token(_ system: SystemHarness) async throws -> String {
        let name = "tap-\(UUID().uuidString.prefix(8))@example.org"
        let created = await system.postPatiently(
            "/v1/auth/register", json: #"{"username": "\#(name)", "password": "Water2026x"}"#)
        #expect(created?.status == 201)
        let login = await system.postPatiently(
            "/v1/auth/login", json: #"{"username": "\#(name)", "password": "Water2026x"}"#)
        return try #require(json(login?.body)["accessToken"] as? String)
    }

    /// One device's sync: its changes (JSON array text) in, the reply out.
    func sync(
        _ system: SystemHarness, _ token: String, device: String, cursor: String?, changes: String = "[]"
    ) async throws -> (changes: [[String: Any]], cursor: String, hasMore: Bool, applied: Int) {
        let cursorText = cursor.map { #""\#($0)""# } ?? "null"
        let reply = await send(
            system, "POST", "/v1/me/hydration/sync",
            body: #"{"cursor": \#(cursorText), "deviceId": "\#(device)", "changes": \#(changes)}"#, token: token)
        #expect(reply?.status == 200, "\(reply?.body ?? "")")
        let object = json(reply?.body)
        return (
            object["changes"] as? [[String: Any]] ?? [], try #require(object["cursor"] as? String),
            object["hasMore"] as? Bool ?? true, object["applied"] as? Int ?? -1
        )
    }

    @Test("drinks: logged once per UUID (201, then 200, other content 409), fixed, deleted, paged; 400s name the field")
    func drinks() async throws {
        let system = try await startHydration()
        defer { _ = system.stopBlocking() }
        let ann = try await token(system)
        let uuid = UUID().uuidString.lowercased()
        let glass =
            #"{"uuid": "\#(uuid)", "category": "glass", "drankAt": "2026-11-20T08:15:00-05:00", "deviceId": "phone"}"#
        #expect(await system.post("/v1/me/drinks", json: glass)?.status == 401)
        let first = await send(system, "POST", "/v1/me/drinks", body: glass, token: ann)
        #expect(first?.status == 201, "\(first?.body ?? "")")
        let volume = json(first?.body)["volume"] as? [String: Any]
        #expect(volume?["ml"] as? Int == 237 && volume?["oz"] as? Double == 8)
        #expect(json(first?.body)["drankAt"] as? String == "2026-11-20T08:15:00-05:00")
        let again = await send(system, "POST", "/v1/me/drinks", body: glass, token: ann)
        #expect(again?.status == 200 && json(again?.body)["uuid"] as? String == uuid)
        let other = glass.replacingOccurrences(of: "glass", with: "bottle")
        #expect(await send(system, "POST", "/v1/me/drinks", body: other, token: ann)?.status == 409)
        for (body, field) in [
            (#"{"uuid": "nope", "category": "glass", "drankAt": "2026-11-20T08:00:00Z"}"#, "uuid"),
            (#"{"uuid": "\#(UUID())", "category": "pint", "drankAt": "2026-11-20T08:00:00Z"}"#, "category"),
            (#"{"uuid": "\#(UUID())", "category": "glass", "drankAt": "1999-12-31T08:00:00Z"}"#, "drankAt"),
            (#"{"uuid": "\#(UUID())", "category": "glass", "drankAt": "2099-01-01T08:00:00Z"}"#, "drankAt"),
            (#"{"uuid": "\#(UUID())", "category": "custom", "drankAt": "2026-11-20T08:00:00Z"}"#, "volume"),
            (
                #"{"uuid": "\#(UUID())", "category": "custom", "volume": {"value": 0, "unit": "ml"}, "drankAt": "2026-11-20T08:00:00Z"}"#,
                "volume"
            ),
            (
                #"{"uuid": "\#(UUID())", "category": "custom", "volume": {"value": 5001, "unit": "ml"}, "drankAt": "2026-11-20T08:00:00Z"}"#,
                "volume"
            ),
        ] {
            let refused = await send(system, "POST", "/v1/me/drinks", body: body, token: ann)
            #expect(refused?.status == 400, "\(body)")
            #expect(
                (json(refused?.body)["details"] as? [String: Any])?["field"] as? String == field,
                "\(refused?.body ?? "")")
        }
        let can = UUID().uuidString.lowercased()
        let logged = await send(
            system, "POST", "/v1/me/drinks",
            body:
                #"{"uuid": "\#(can)", "category": "custom", "volume": {"value": 330, "unit": "ml"}, "drankAt": "2026-11-20T12:00:00+01:00"}"#,
            token: ann)
        #expect(logged?.status == 201)
        let fixed = await send(
            system, "PATCH", "/v1/me/drinks/\(can)", body: #"{"volume": {"value": 12, "unit": "oz"}}"#, token: ann)
        #expect(fixed?.status == 200 && (json(fixed?.body)["volume"] as? [String: Any])?["ml"] as? Int == 355)
        let bob = try await token(system)
        #expect(
            await send(system, "PATCH", "/v1/me/drinks/\(can)", body: #"{"category": "glass"}"#, token: bob)?.status
                == 404)
        #expect(await send(system, "DELETE", "/v1/me/drinks/\(can)", token: bob)?.status == 404)
        let page = await send(system, "GET", "/v1/me/drinks?limit=1", token: ann)
        let firstPage = json(page?.body)
        #expect(
            (firstPage["items"] as? [[String: Any]])?.first?["uuid"] as? String == uuid,
            "08:15-05:00 is the later drink")
        let cursor = try #require(firstPage["nextCursor"] as? String)
        let next = await send(system, "GET", "/v1/me/drinks?limit=1&cursor=\(cursor)", token: ann)
        #expect((json(next?.body)["items"] as? [[String: Any]])?.first?["uuid"] as? String == can)
        #expect(await send(system, "DELETE", "/v1/me/drinks/\(can)", token: ann)?.status == 204)
        #expect(await send(system, "DELETE", "/v1/me/drinks/\(can)", token: ann)?.status == 404)
        let left = await send(
            system, "GET", "/v1/me/drinks?from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z", token: ann)
        #expect((json(left?.body)["items"] as? [[String: Any]])?.map { $0["uuid"] as? String } == [uuid])
        #expect(await send(system, "GET", "/v1/me/drinks?limit=0", token: ann)?.status == 400)
    }

    @Test(
        "two devices sync: offline drinks meet, a delete against an offline edit ends the same on both, retries change nothing"
    )
    func twoDevices() async throws {
        let system = try await startHydration()
        defer { _ = system.stopBlocking() }
        let ann = try await token(system)
        let (tea, water, juice) = (
            UUID().uuidString.lowercased(), UUID().uuidString.lowercased(), UUID().uuidString.lowercased()
        )
        // The phone logged two drinks offline on the train.
        let phoneBatch = """
            [{"uuid": "\(tea)", "category": "glass", "drankAt": "2026-11-20T07:30:00+01:00", "modifiedAt": "2026-11-20T06:30:00Z"},
             {"uuid": "\(water)", "category": "bottle", "drankAt": "2026-11-20T09:00:00+01:00", "modifiedAt": "2026-11-20T08:00:00Z"}]
            """
        var phone = try await sync(system, ann, device: "phone", cursor: nil, changes: phoneBatch)
        #expect(phone.applied == 2 && !phone.hasMore)
        #expect(phone.changes.count == 2, "a first sync (no cursor) gets everything, its own changes too")
        let retried = try await sync(system, ann, device: "phone", cursor: phone.cursor, changes: phoneBatch)
        #expect(retried.applied == 0 && retried.changes.isEmpty && retried.cursor == phone.cursor)
        // The tablet, new, pulls everything; it logs a drink of its own.
        let juiceBatch = """
            [{"uuid": "\(juice)", "category": "custom", "volume": {"value": 250, "unit": "ml"}, "drankAt": "2026-11-20T12:00:00+01:00", "modifiedAt": "2026-11-20T11:00:00Z"}]
            """
        var tablet = try await sync(system, ann, device: "tablet", cursor: nil, changes: juiceBatch)
        #expect(Set(tablet.changes.compactMap { $0["uuid"] as? String }) == [tea, water, juice])
        phone = try await sync(system, ann, device: "phone", cursor: phone.cursor)
        #expect(phone.changes.compactMap { $0["uuid"] as? String } == [juice])
        #expect((phone.changes.first?["exactVolume"] as? [String: Any])?["unit"] as? String == "ml")

        // Both offline: the tablet deletes the water at 12:00Z, the phone makes it a glass at 11:00Z.
        tablet = try await sync(
            system, ann, device: "tablet", cursor: tablet.cursor,
            changes: #"[{"uuid": "\#(water)", "modifiedAt": "2026-11-20T12:00:00Z", "deleted": true}]"#)
        #expect(tablet.applied == 1)
        phone = try await sync(
            system, ann, device: "phone", cursor: phone.cursor,
            changes:
                #"[{"uuid": "\#(water)", "category": "glass", "drankAt": "2026-11-20T09:00:00+01:00", "modifiedAt": "2026-11-20T11:00:00Z"}]"#
        )
        #expect(phone.applied == 0, "the older edit loses")
        let water1 = phone.changes.first { $0["uuid"] as? String == water }
        #expect(water1?["deleted"] as? Bool == true && water1?["modifiedBy"] as? String == "tablet")
        tablet = try await sync(system, ann, device: "tablet", cursor: tablet.cursor)
        #expect(tablet.changes.isEmpty, "the tablet's delete stands: \(tablet.changes)")

        // An edit through the API reaches both devices.
        #expect(
            await send(system, "PATCH", "/v1/me/drinks/\(tea)", body: #"{"category": "bottle"}"#, token: ann)?.status
                == 200)
        for device in ["phone", "tablet"] {
            let cursor = device == "phone" ? phone.cursor : tablet.cursor
            let pulled = try await sync(system, ann, device: device, cursor: cursor)
            #expect(pulled.changes.map { $0["category"] as? String } == ["bottle"], "\(device)")
            #expect(pulled.changes.first?["modifiedBy"] as? String == "api")
        }
        let live = json(await send(system, "GET", "/v1/me/drinks", token: ann)?.body)["items"] as? [[String: Any]]
        #expect(Set(live?.compactMap { $0["uuid"] as? String } ?? []) == [tea, juice])
        let bad = await send(
            system, "POST", "/v1/me/hydration/sync",
            body:
                #"{"deviceId": "phone", "changes": [{"uuid": "\#(UUID())", "category": "glass", "drankAt": "yesterday", "modifiedAt": "2026-11-20T11:00:00Z"}]}"#,
            token: ann)
        #expect(bad?.status == 400)
        #expect(
            (json(bad?.body)["details"] as? [String: Any])?["field"] as? String == "changes[0].drankAt",
            "\(bad?.body ?? "")")
    }

    @Test("history by the user's day against the plan, the plan itself, and a deleted account forgotten")
    func historyPlanAndForget() async throws {
        let system = try await startHydration()
        defer { _ = system.stopBlocking() }
        let ann = try await token(system)
        let initial = json(await send(system, "GET", "/v1/me/hydration/plan", token: ann)?.body)
        #expect(initial["saved"] as? Bool == false)
        let plan =
            #"{"dailyGoal": 16, "unit": "oz", "remindersPerDay": 2, "wake": "08:00", "sleep": "20:00", "timeZone": "America/New_York"}"#
        let saved = await send(system, "PUT", "/v1/me/hydration/plan", body: plan, token: ann)
        #expect(saved?.status == 200)
        #expect(json(saved?.body)["reminderTimes"] as? [String] == ["12:00", "16:00"])
        let badZone = plan.replacingOccurrences(of: "America/New_York", with: "Atlantis/Capital")
        #expect(await send(system, "PUT", "/v1/me/hydration/plan", body: badZone, token: ann)?.status == 400)
        for (category, at) in [
            ("bottle", "2026-11-18T10:00:00-05:00"), ("glass", "2026-11-19T10:00:00-05:00"),
            ("glass", "2026-11-19T23:30:00-05:00"),
        ] {
            let body = #"{"uuid": "\#(UUID())", "category": "\#(category)", "drankAt": "\#(at)"}"#
            #expect(await send(system, "POST", "/v1/me/drinks", body: body, token: ann)?.status == 201)
        }
        let history = json(
            await send(system, "GET", "/v1/me/hydration/days?from=2026-11-17&to=2026-11-20", token: ann)?.body)
        let days = history["days"] as? [[String: Any]] ?? []
        #expect(days.map { $0["percent"] as? Int } == [0, 100, 100, 0])
        #expect(days.map { $0["drinks"] as? Int } == [0, 1, 2, 0])
        #expect(history["longestStreak"] as? Int == 2 && history["currentStreak"] as? Int == 2)
        #expect(
            await send(system, "GET", "/v1/me/hydration/days?from=2025-01-01&to=2026-11-20", token: ann)?.status == 400)

        #expect(await send(system, "DELETE", "/v1/me", token: ann)?.status == 204)
        // auth.account_deleted reaches hydration through the event log; the access token lives on
        // for its few minutes, which lets the test see the drinks go.
        var remaining = -1
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let list = json(await send(system, "GET", "/v1/me/drinks", token: ann)?.body)["items"] as? [[String: Any]]
            remaining = list?.count ?? -1
            if remaining == 0 { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(remaining == 0, "the deleted account's drinks are forgotten")
        #expect(json(await send(system, "GET", "/v1/me/hydration/plan", token: ann)?.body)["saved"] as? Bool == false)
    }

    @Test("a reminder fires into the inbox saying how much to drink now for what was logged; none once the goal is met")
    func reminderInInbox() async throws {
        let system = try await startHydration(notify: true)
        defer { _ = system.stopBlocking() }
        let ann = try await token(system)
        let bea = try await token(system)
        // A fixed-offset zone where it is around noon now, so the test's reminders and drinks
        // fall on one local day whenever it runs.
        let now = Date()
        let utc = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: now)
        let hours = 12 - (utc.hour ?? 12)
        let zone = hours == 0 ? "Etc/UTC" : hours > 0 ? "Etc/GMT-\(hours)" : "Etc/GMT+\(-hours)"
        let offset = String(format: "%@%02d:00", hours < 0 ? "-" : "+", abs(hours))
        func local(_ date: Date) -> (text: String, minutes: Int) {
            let parts = Calendar(identifier: .gregorian).dateComponents(
                in: TimeZone(secondsFromGMT: hours * 3_600)!, from: date)
            let text = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
            return (text + offset, (parts.hour ?? 0) * 60 + (parts.minute ?? 0))
        }
        func clock(_ minutes: Int) -> String { String(format: "%02d:%02d", minutes / 60, minutes % 60) }
        // Three reminders half an hour apart, the second in a minute or two: two are left then.
        let due = local(now).minutes + 2
        for (user, goal) in [(ann, 64), (bea, 16)] {
            let plan =
                #"{"dailyGoal": \#(goal), "unit": "oz", "remindersPerDay": 3, "wake": "\#(clock(due - 60))", "sleep": "\#(clock(due + 60))", "timeZone": "\#(zone)"}"#
            let saved = await send(system, "PUT", "/v1/me/hydration/plan", body: plan, token: user)
            #expect(saved?.status == 200, "\(saved?.body ?? "")")
            #expect(json(saved?.body)["reminderTimes"] as? [String] == [clock(due - 30), clock(due), clock(due + 30)])
            // A bottle this morning: 48 oz of Ann's 64 left over two reminders; Bea's 16 met.
            let drankAt = local(now.addingTimeInterval(-60)).text
            let bottle = #"{"uuid": "\#(UUID())", "category": "bottle", "drankAt": "\#(drankAt)"}"#
            #expect(await send(system, "POST", "/v1/me/drinks", body: bottle, token: user)?.status == 201)
        }

        func reminders(_ user: String) async -> [[String: Any]] {
            let items = json(await send(system, "GET", "/v1/me/notifications", token: user)?.body)["items"]
            return (items as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "hydration_reminder" }
        }
        var arrived: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(200)
        while Date() < deadline {
            arrived = await reminders(ann)
            if !arrived.isEmpty { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        #expect(
            arrived.map { $0["body"] as? String } == [
                "Time for a bottle and a glass: 24 oz now keeps you on track for 64 oz"
            ], "\(arrived)")
        #expect(arrived.first?["title"] as? String == "Time for some water")
        // Bea's occurrence was due at the same minute; give its composition a moment.
        try await Task.sleep(for: .seconds(3))
        #expect(await reminders(bea).isEmpty, "no reminder once the goal is met")
    }

    @Test("the plan's reminders become notify's schedule in another process; a new plan reschedules, none removes it")
    func remindersScheduled() async throws {
        let system = try await startHydration(notify: true)
        defer { _ = system.stopBlocking() }
        let ann = try await token(system)
        /// The times of the caller's hydration reminder schedule, once they equal `expected`
        /// (nil: no such schedule), or what they were at the deadline.
        func waitForSchedule(_ expected: [String]?) async throws -> [String]? {
            var times: [String]? = ["(never read)"]
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                let items =
                    json(await send(system, "GET", "/v1/me/schedules", token: ann)?.body)["items"] as? [[String: Any]]
                times = items?.first { $0["kind"] as? String == "hydration_reminder" }?["timesOfDay"] as? [String]
                if times == expected { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            return times
        }
        let plan =
            #"{"dailyGoal": 2000, "unit": "ml", "remindersPerDay": 3, "wake": "08:00", "sleep": "20:00", "timeZone": "Europe/Stockholm"}"#
        #expect(await send(system, "PUT", "/v1/me/hydration/plan", body: plan, token: ann)?.status == 200)
        #expect(try await waitForSchedule(["11:00", "14:00", "17:00"]) == ["11:00", "14:00", "17:00"])
        let fewer = plan.replacingOccurrences(of: #""remindersPerDay": 3"#, with: #""remindersPerDay": 1"#)
        #expect(await send(system, "PUT", "/v1/me/hydration/plan", body: fewer, token: ann)?.status == 200)
        #expect(try await waitForSchedule(["14:00"]) == ["14:00"])
        let none = plan.replacingOccurrences(of: #""remindersPerDay": 3"#, with: #""remindersPerDay": 0"#)
        #expect(await send(system, "PUT", "/v1/me/hydration/plan", body: none, token: ann)?.status == 200)
        #expect(try await waitForSchedule(nil) == nil)
        let own = #"{"kind": "hydration_reminder", "variables": {"text": "drink"}, "timesOfDay": ["09:00"]}"#
        #expect(
            await send(system, "POST", "/v1/me/schedules", body: own, token: ann)?.status == 400,
            "only a plan schedules these")
    }
}
