import Foundation
import Testing

/// NavUP's events, pins, goals and rewards through the gateway, with the real processes.
extension RoutingHTTPTests {
    @Test("events: admin adds, edits and deletes; everyone lists upcoming by kind and venue; others get 403")
    func campusEvents() async throws {
        let system = try await startRouting()
        defer { _ = system.stopBlocking() }
        let user = try await token(system)
        let admin = try await token(system, roles: ["admin"])
        let venue = try await venueId(system, "Old%20Arts%20Clock")
        let title = "Heritage tour \(UUID().uuidString.prefix(6))"
        let soon = Date().addingTimeInterval(86_400).formatted(.iso8601)
        let later = Date().addingTimeInterval(90_000).formatted(.iso8601)
        let draft =
            #"{"title": "\#(title)", "kind": "cultural", "venueId": "\#(venue)", "startsAt": "\#(soon)", "endsAt": "\#(later)"}"#
        #expect(await system.post("/v1/admin/campus/events", json: draft)?.status == 401)
        #expect(await send(system, "POST", "/v1/admin/campus/events", body: draft, token: user)?.status == 403)
        let created = await send(system, "POST", "/v1/admin/campus/events", body: draft, token: admin)
        #expect(created?.status == 201, "\(created?.body ?? "")")
        let id = try #require(json(created?.body)["id"] as? String)
        #expect(json(created?.body)["venueName"] as? String == "Old Arts Clock Tower")

        let listed = await system.get("/v1/campus/events?kind=cultural&venueId=\(venue)")
        #expect(listed?.status == 200)
        let titles = (json(listed?.body)["items"] as? [[String: Any]])?.compactMap { $0["title"] as? String } ?? []
        #expect(titles.contains(title), "\(listed?.body ?? "")")
        // A page at a time, soonest first: two more at the venue, then pages of one.
        var extra: [String] = []
        for hours in [30, 40] {
            let starts = Date().addingTimeInterval(Double(hours) * 3_600).formatted(.iso8601)
            let ends = Date().addingTimeInterval(Double(hours + 2) * 3_600).formatted(.iso8601)
            let more =
                #"{"title": "\#(title) \#(hours)", "kind": "cultural", "venueId": "\#(venue)", "startsAt": "\#(starts)", "endsAt": "\#(ends)"}"#
            let made = await send(system, "POST", "/v1/admin/campus/events", body: more, token: admin)
            #expect(made?.status == 201)
            extra += [json(made?.body)["id"] as? String].compactMap { $0 }
        }
        defer {
            for id in extra {
                _ = HTTP.request(
                    port: system.httpPort, method: "DELETE", path: "/v1/admin/campus/events/\(id)",
                    headers: ["Authorization": "Bearer \(admin)"])
            }
        }
        var pagedTitles: [String] = []
        var cursor: String?
        repeat {
            let page = await system.get(
                "/v1/campus/events?kind=cultural&venueId=\(venue)&limit=1" + (cursor.map { "&cursor=\($0)" } ?? ""))
            let items = json(page?.body)["items"] as? [[String: Any]] ?? []
            #expect(page?.status == 200 && items.count <= 1, "\(page?.body ?? "")")
            pagedTitles += items.compactMap { $0["title"] as? String }
            cursor = json(page?.body)["nextCursor"] as? String
        } while cursor != nil && pagedTitles.count < 100
        #expect(pagedTitles.filter { $0.hasPrefix(title) } == [title, "\(title) 30", "\(title) 40"])
        #expect(await system.get("/v1/campus/events?cursor=yesterday")?.status == 400)
        let sport = await system.get("/v1/campus/events?kind=sport&venueId=\(venue)")
        #expect(sport?.body.contains(title) == false)
        #expect(await system.get("/v1/campus/events?kind=party")?.status == 400)

        let backwards =
            #"{"title": "x", "kind": "sport", "startsAt": "\#(later)", "endsAt": "\#(soon)"}"#
        #expect(await send(system, "POST", "/v1/admin/campus/events", body: backwards, token: admin)?.status == 400)
        let renamed = draft.replacingOccurrences(of: "Heritage", with: "Night")
        let updated = await send(system, "PUT", "/v1/admin/campus/events/\(id)", body: renamed, token: admin)
        #expect(updated?.status == 200)
        #expect(json(updated?.body)["id"] as? String == id)
        let withId = renamed.replacingOccurrences(of: "{", with: #"{"id": "\#(id)", "#)
        let twice = await send(system, "PUT", "/v1/admin/campus/events/\(id)", body: withId, token: admin)
        #expect(twice?.status == 400, "the id is the path's, not the body's")
        #expect(json(updated?.body)["title"] as? String == title.replacingOccurrences(of: "Heritage", with: "Night"))
        #expect(await send(system, "DELETE", "/v1/admin/campus/events/\(id)", token: user)?.status == 403)
        #expect(await send(system, "DELETE", "/v1/admin/campus/events/\(id)", token: admin)?.status == 204)
        #expect(await send(system, "DELETE", "/v1/admin/campus/events/\(id)", token: admin)?.status == 404)
        #expect(await system.get("/v1/campus/events?venueId=\(venue)")?.body.contains(id) == false)
    }

    @Test("pins: saved, listed and deleted by their owner only")
    func pins() async throws {
        let system = try await startRouting()
        defer { _ = system.stopBlocking() }
        let ann = try await token(system)
        let bob = try await token(system)
        let pin = #"{"lat": -25.7545, "lon": 28.2314, "level": 1, "description": "where I parked"}"#
        #expect(await system.post("/v1/me/pins", json: pin)?.status == 401)
        let saved = await send(system, "POST", "/v1/me/pins", body: pin, token: ann)
        #expect(saved?.status == 201, "\(saved?.body ?? "")")
        let id = try #require(json(saved?.body)["id"] as? String)
        let blank = #"{"lat": -25.7545, "lon": 28.2314, "description": "  "}"#
        #expect(await send(system, "POST", "/v1/me/pins", body: blank, token: ann)?.status == 400)
        let offGlobe = await send(
            system, "POST", "/v1/me/pins", body: #"{"lat": -25.7545, "lon": 228.2314, "description": "x"}"#, token: ann)
        #expect(offGlobe?.status == 400)
        #expect((json(offGlobe?.body)["details"] as? [String: Any])?["field"] as? String == "lon")
        #expect(offGlobe?.body.contains("228.2314") == false, "a refusal never repeats a position")
        let mine = json(await send(system, "GET", "/v1/me/pins", token: ann)?.body)["items"] as? [[String: Any]]
        #expect(mine?.count == 1 && mine?.first?["description"] as? String == "where I parked")
        let theirs = json(await send(system, "GET", "/v1/me/pins", token: bob)?.body)["items"] as? [[String: Any]]
        #expect(theirs?.isEmpty == true)
        // Pages: two more pins, two at a time, newest first, each once.
        for spot in ["desk", "locker"] {
            let more = #"{"lat": -25.7545, "lon": 28.2314, "description": "\#(spot)"}"#
            #expect(await send(system, "POST", "/v1/me/pins", body: more, token: ann)?.status == 201)
        }
        let page1 = json(await send(system, "GET", "/v1/me/pins?limit=2", token: ann)?.body)
        let cursor = try #require(page1["nextCursor"] as? String)
        let page2 = json(await send(system, "GET", "/v1/me/pins?limit=2&cursor=\(cursor)", token: ann)?.body)
        #expect(page2["nextCursor"] == nil)
        let described = { (page: [String: Any]) in
            ((page["items"] as? [[String: Any]]) ?? []).compactMap { $0["description"] as? String }
        }
        #expect(described(page1) + described(page2) == ["locker", "desk", "where I parked"])
        for item in (page1["items"] as? [[String: Any]] ?? []) {
            if let extra = item["id"] as? String {
                #expect(await send(system, "DELETE", "/v1/me/pins/\(extra)", token: ann)?.status == 204)
            }
        }
        #expect(await send(system, "DELETE", "/v1/me/pins/\(id)", token: bob)?.status == 404)
        #expect(await send(system, "DELETE", "/v1/me/pins/\(id)", token: ann)?.status == 204)
        #expect(await send(system, "GET", "/v1/me/pins", token: ann)?.body.contains(id) == false)

        #expect(await send(system, "POST", "/v1/me/pins", body: pin, token: ann)?.status == 201)
        #expect(await send(system, "DELETE", "/v1/me", token: ann)?.status == 204)
        let deadline = Date().addingTimeInterval(30)
        var left = -1
        repeat {
            try await Task.sleep(for: .milliseconds(200))
            left = (json(await send(system, "GET", "/v1/me/pins", token: ann)?.body)["items"] as? [Any])?.count ?? -1
        } while left != 0 && Date() < deadline
        #expect(left == 0, "auth.account_deleted makes routing forget the account's pins")
    }

    @Test("goals: an admin sets one, walking completes it, the voucher is redeemed once by a rewards manager")
    func goalsToRedemption() async throws {
        let system = try await startRouting()
        defer { _ = system.stopBlocking() }
        let walker = try await token(system)
        let admin = try await token(system, roles: ["admin"])
        let manager = try await token(system, roles: ["rewards_manager"])
        let goal =
            #"{"title": "Step up \#(UUID().uuidString.prefix(6))", "metric": "steps", "target": 8000, "reward": "a smoothie at the Student Centre"}"#
        #expect(await send(system, "POST", "/v1/admin/campus/goals", body: goal, token: walker)?.status == 403)
        let created = await send(system, "POST", "/v1/admin/campus/goals", body: goal, token: admin)
        #expect(created?.status == 201, "\(created?.body ?? "")")
        let goalId = try #require(json(created?.body)["id"] as? String)

        func mine(_ body: String?) -> [String: Any]? {
            (json(body)["goals"] as? [[String: Any]])?.first {
                ($0["goal"] as? [String: Any])?["id"] as? String == goalId
            }
        }
        let before = await send(system, "GET", "/v1/me/goals", token: walker)
        #expect(before?.status == 200)
        #expect(mine(before?.body)?["completed"] as? Bool == false)
        #expect(await system.post("/v1/me/activity", json: #"{"steps": 5000, "distance": 3500}"#)?.status == 401)
        #expect(
            await send(system, "POST", "/v1/me/activity", body: #"{"steps": -5, "distance": 0}"#, token: walker)?.status
                == 400)
        let report = #"{"steps": 5000, "distance": 3500, "reportId": "\#(UUID().uuidString)"}"#
        let halfway = await send(system, "POST", "/v1/me/activity", body: report, token: walker)
        #expect(halfway?.status == 200, "\(halfway?.body ?? "")")
        #expect(mine(halfway?.body)?["progress"] as? Int == 5000)
        let retried = await send(system, "POST", "/v1/me/activity", body: report, token: walker)
        #expect(mine(retried?.body)?["progress"] as? Int == 5000, "a retried report counts once")
        let done = await send(
            system, "POST", "/v1/me/activity", body: #"{"steps": 3500, "distance": 2400}"#, token: walker)
        #expect((json(done?.body)["justCompleted"] as? [String])?.contains(goalId) == true, "\(done?.body ?? "")")
        let voucher = try #require(mine(done?.body)?["voucher"] as? [String: Any])
        let code = try #require(voucher["code"] as? String)
        #expect(voucher["reward"] as? String == "a smoothie at the Student Centre")

        #expect(await send(system, "GET", "/v1/rewards/\(code)", token: walker)?.status == 403)
        let verified = await send(system, "GET", "/v1/rewards/\(code.lowercased())", token: manager)
        #expect(verified?.status == 200)
        #expect(json(verified?.body)["redeemedAt"] == nil)
        #expect(await send(system, "POST", "/v1/rewards/\(code)/redeem", token: walker)?.status == 403)

        let attempts = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { await send(system, "POST", "/v1/rewards/\(code)/redeem", token: manager)?.status ?? 0 }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(attempts.sorted() == [200] + Array(repeating: 409, count: 7), "\(attempts)")
        let after = await send(system, "GET", "/v1/rewards/\(code)", token: manager)
        #expect(json(after?.body)["redeemedAt"] is String)
        let again = await send(system, "POST", "/v1/rewards/\(code)/redeem", token: manager)
        #expect(again?.status == 409 && again?.body.contains("already_redeemed") == true)
        #expect(await send(system, "POST", "/v1/rewards/ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ/redeem", token: manager)?.status == 404)
        let week = await send(system, "GET", "/v1/me/goals", token: walker)
        #expect((mine(week?.body)?["voucher"] as? [String: Any])?["redeemedAt"] is String)

        #expect(await send(system, "DELETE", "/v1/admin/campus/goals/\(goalId)", token: admin)?.status == 204)
        #expect(
            await send(system, "GET", "/v1/rewards/\(code)", token: manager)?.status == 200, "vouchers outlive goals")
    }
}

extension RoutingHTTPTests {
    @Test("goal weeks in campus time (CAMPUS_TIME_ZONE): Monday 00:00 local to Monday 00:00, 167 hours across DST")
    func goalWeeksInCampusTime() async throws {
        let zone = try #require(TimeZone(identifier: "America/Los_Angeles"))
        let system = try await startRouting(["CAMPUS_TIME_ZONE": zone.identifier])
        defer { _ = system.stopBlocking() }
        let walker = try await token(system)
        let admin = try await token(system, roles: ["admin"])
        func instant(_ value: Any?) -> Date? { (value as? String).flatMap { ISO8601DateFormatter().date(from: $0) } }
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = zone

        // This week: it holds now, and begins and ends at midnight going into Monday on campus.
        let before = Date()
        let now = json(await send(system, "GET", "/v1/me/goals", token: walker)?.body)
        let after = Date()
        let startsAt = try #require(instant(now["weekStartsAt"]), "\(now)")
        let endsAt = try #require(instant(now["weekEndsAt"]))
        #expect(startsAt <= after && before < endsAt)
        for edge in [startsAt, endsAt] {
            let local = calendar.dateComponents([.weekday, .hour, .minute, .second], from: edge)
            #expect(local.weekday == 2 && local.hour == 0 && local.minute == 0 && local.second == 0, "\(edge)")
        }
        let monday = calendar.dateComponents([.year, .month, .day], from: startsAt)
        #expect(
            now["weekStart"] as? String
                == String(format: "%04d-%02d-%02d", monday.year ?? 0, monday.month ?? 0, monday.day ?? 0))

        // The week clocks go forward in California (Sunday 14 March 2027): 167 hours, its edges
        // at 08:00Z (PST) and 07:00Z (PDT).
        let spring = json(await send(system, "GET", "/v1/me/goals?week=2027-03-14", token: walker)?.body)
        #expect(spring["weekStart"] as? String == "2027-03-08", "\(spring)")
        #expect(spring["weekStartsAt"] as? String == "2027-03-08T08:00:00Z")
        #expect(spring["weekEndsAt"] as? String == "2027-03-15T07:00:00Z")
        let next = json(await send(system, "GET", "/v1/me/goals?week=2027-03-15", token: walker)?.body)
        #expect(next["weekStartsAt"] as? String == "2027-03-15T07:00:00Z", "the next week begins as this one ends")

        // An admin names any day of the week; the goal is the campus week's.
        let goal =
            #"{"title": "Spring forward \#(UUID().uuidString.prefix(6))", "metric": "steps", "target": 5000, "weekStart": "2027-03-14", "reward": "a coffee"}"#
        let created = await send(system, "POST", "/v1/admin/campus/goals", body: goal, token: admin)
        #expect(created?.status == 201, "\(created?.body ?? "")")
        #expect(json(created?.body)["weekStart"] as? String == "2027-03-08")
        let goalId = try #require(json(created?.body)["id"] as? String)
        let listed = json(await send(system, "GET", "/v1/me/goals?week=2027-03-09", token: walker)?.body)
        #expect(
            (listed["goals"] as? [[String: Any]])?.contains { ($0["goal"] as? [String: Any])?["id"] as? String == goalId }
                == true)
        #expect(await send(system, "DELETE", "/v1/admin/campus/goals/\(goalId)", token: admin)?.status == 204)

        // A zone routing does not know stops it at start, naming the setting.
        let (status, output) = try await system.runToEnd(
            "routing", arguments: [], extra: ["CAMPUS_TIME_ZONE": "Mars/Olympus_Mons"])
        #expect(status != 0)
        #expect(output.contains("CAMPUS_TIME_ZONE 'Mars/Olympus_Mons' is not an IANA time zone"), "\(output)")
    }

    @Test("a signed-in Wi-Fi locate at a venue counts as a visit towards a venues goal; an anonymous one does not")
    func venueVisitGoal() async throws {
        let system = try await startRouting()
        defer { _ = system.stopBlocking() }
        let walker = try await token(system)
        let admin = try await token(system, roles: ["admin"])
        let bytes = (0..<4).map { _ in String(format: "%02x", Int.random(in: 0..<256)) }.joined(separator: ":")
        let bssid = "02:bb:\(bytes)"
        let (lat, lon) = (-25.7551 + Double.random(in: 0..<0.0004), 28.2331)
        let point = #"{"name": "visit test AP", "lat": \#(lat), "lon": \#(lon), "level": 7, "capacity": 40}"#
        #expect(
            await send(system, "PUT", "/v1/admin/campus/access-points/\(bssid)", body: point, token: admin)?.status
                == 200)
        let venue =
            #"{"name": "Rooftop \#(UUID().uuidString.prefix(6))", "kind": "landmark", "level": 7, "lat": \#(lat), "lon": \#(lon)}"#
        let createdVenue = await send(system, "POST", "/v1/admin/campus/venues", body: venue, token: admin)
        #expect(createdVenue?.status == 201)
        let venueId = try #require(json(createdVenue?.body)["id"] as? String, "\(createdVenue?.body ?? "")")
        let goal =
            #"{"title": "Explore \#(UUID().uuidString.prefix(6))", "metric": "venues", "target": 1, "reward": "a campus map poster"}"#
        let goalId = try #require(
            json(await send(system, "POST", "/v1/admin/campus/goals", body: goal, token: admin)?.body)["id"] as? String)
        func mine() async -> [String: Any]? {
            let week = await send(system, "GET", "/v1/me/goals", token: walker)
            return (json(week?.body)["goals"] as? [[String: Any]])?.first {
                ($0["goal"] as? [String: Any])?["id"] as? String == goalId
            }
        }
        let scan = #"{"scan": [{"bssid": "\#(bssid)", "rssi": -42}]}"#
        #expect(await system.post("/v1/campus/locate", json: scan)?.status == 200)
        #expect(await mine()?["completed"] as? Bool == false, "not completed before the walker is located")
        let located = await send(system, "POST", "/v1/campus/locate", body: scan, token: walker)
        #expect(located?.status == 200 && json(located?.body)["level"] as? Int == 7, "\(located?.body ?? "")")
        let progress = await mine()
        #expect(progress?["completed"] as? Bool == true && progress?["progress"] as? Int == 1, "\(progress ?? [:])")
        #expect((progress?["voucher"] as? [String: Any])?["code"] is String)
        // The database is shared with the suites that follow: a rooftop venue off the campus map
        // left behind would turn their random routes into 400s (`off_map`).
        #expect(await send(system, "DELETE", "/v1/admin/campus/venues/\(venueId)", token: admin)?.status == 204)
        _ = await send(system, "DELETE", "/v1/admin/campus/access-points/\(bssid)", token: admin)
        _ = await send(system, "DELETE", "/v1/admin/campus/goals/\(goalId)", token: admin)
    }
}
