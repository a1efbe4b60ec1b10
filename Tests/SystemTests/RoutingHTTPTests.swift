import Foundation
import Testing

/// NavUP through HTTP: gateway, broker, auth and routing as real processes, on the sample campus.
@Suite("routing over HTTP (real processes)", .serialized)
struct RoutingHTTPTests {
    /// `settings` are routing's, on top of a fast campus refresh.
    func startRouting(_ settings: [String: String] = [:]) async throws -> SystemHarness {
        let system = try SystemHarness()
        try system.start("broker")
        try system.start("auth")
        try system.start("routing", extra: ["CAMPUS_REFRESH_MS": "500"].merging(settings) { _, new in new })
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth,routing"])
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

    func send(
        _ system: SystemHarness, _ method: String, _ path: String, body: String? = nil, token: String? = nil,
        contentType: String = "application/json"
    ) async -> HTTP.Response? {
        let port = system.httpPort
        let headers = token.map { ["Authorization": "Bearer \($0)"] } ?? [:]
        return await offPool {
            HTTP.request(port: port, method: method, path: path, body: body, headers: headers, contentType: contentType)
        }
    }

    /// A signed-in user's access token; with `roles`, the account is given them first (in the
    /// database, as an operator would).
    func token(_ system: SystemHarness, roles: [String] = []) async throws -> String {
        let name = "nav-\(UUID().uuidString.prefix(8))@example.org"
        let created = await system.post(
            "/v1/auth/register", json: #"{"username": "\#(name)", "password": "Lund2026x"}"#)
        #expect(created?.status == 201)
        if !roles.isEmpty {
            let list = roles.map { "'\($0)'" }.joined(separator: ",")
            let sql = "UPDATE auth.users SET roles = ARRAY[\(list)] WHERE username = lower('\(name)')"
            let status = try await offPool { () throws -> Int32 in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = ["psql", SystemHarness.databaseURL, "-qc", sql]
                try process.run()
                process.waitUntilExit()
                return process.terminationStatus
            }
            #expect(status == 0, "psql must be on PATH to grant roles")
        }
        let login = await system.post("/v1/auth/login", json: #"{"username": "\#(name)", "password": "Lund2026x"}"#)
        return try #require(json(login?.body)["accessToken"] as? String)
    }

    func venueId(_ system: SystemHarness, _ query: String) async throws -> String {
        let found = await system.get("/v1/campus/venues?q=\(query)")
        let venues = try #require(json(found?.body)["items"] as? [[String: Any]])
        return try #require(venues.first?["id"] as? String)
    }

    @Test("venues: typo-tolerant search, kind filter, near a position, one by id")
    func venues() async throws {
        let system = try await startRouting()
        defer { _ = system.stopBlocking() }
        let typo = await system.get("/v1/campus/venues?q=merenski%20libary")
        #expect(typo?.status == 200)
        let first = (json(typo?.body)["items"] as? [[String: Any]])?.first
        #expect(
            (first?["building"] as? String) == "Merensky Library"
                || (first?["name"] as? String)?.contains("Library") == true,
            "\(typo?.body ?? "")")

        let food = await system.get("/v1/campus/venues?kind=food_court")
        let kinds = (json(food?.body)["items"] as? [[String: Any]])?.compactMap { $0["kind"] as? String } ?? []
        #expect(kinds.count >= 3 && kinds.allSatisfy { $0 == "food_court" })
        #expect(await system.get("/v1/campus/venues?kind=pub")?.status == 400)

        let near = await system.get("/v1/campus/venues?near=-25.7545,28.2314&radius=80")
        let nearby = json(near?.body)["items"] as? [[String: Any]] ?? []
        #expect(
            !nearby.isEmpty && nearby.allSatisfy { ($0["distance"] as? Double ?? 1e9) <= 80 }, "\(near?.body ?? "")")

        // Pages of three through every venue within 2 km: the same venues, in the same order, as
        // one page of a hundred; a cursor is bound to its search.
        let wide = "/v1/campus/venues?near=-25.7545,28.2314&radius=2000"
        let all = (json(await system.get("\(wide)&limit=100")?.body)["items"] as? [[String: Any]] ?? [])
            .compactMap { $0["id"] as? String }
        #expect(all.count > 6, "the sample campus has venues within 2 km")
        var paged: [String] = []
        var cursor: String?
        repeat {
            let page = await system.get("\(wide)&limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""))
            #expect(page?.status == 200, "\(page?.body ?? "")")
            paged += (json(page?.body)["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            cursor = json(page?.body)["nextCursor"] as? String
        } while cursor != nil && paged.count < 1_000
        #expect(paged == all)
        let firstPage = await system.get("\(wide)&limit=3")
        let next = try #require(json(firstPage?.body)["nextCursor"] as? String)
        #expect(await system.get("/v1/campus/venues?kind=sport&limit=3&cursor=\(next)")?.status == 400)
        #expect(await system.get("\(wide)&cursor=3.zz")?.status == 400)

        let id = try await venueId(system, "Old%20Arts%20Clock")
        let one = await system.get("/v1/campus/venues/\(id)")
        #expect(one?.status == 200)
        #expect(one?.body.contains("national monument") == true)
        #expect(await system.get("/v1/campus/venues/\(UUID().uuidString)")?.status == 404)
    }

    @Test(
        "routes: every profile between venues; accessible without stairs; no accessible route and off the map are 4xx")
    func routes() async throws {
        let system = try await startRouting()
        defer { _ = system.stopBlocking() }
        let hall = try await venueId(system, "Engineering%20Lecture%20Hall%201")
        let lab = try await venueId(system, "IT%204-1")
        for profile in ["fastest", "accessible", "shortest"] {
            let response = await system.post(
                "/v1/campus/routes",
                json: #"{"from": {"venueId": "\#(hall)"}, "to": {"venueId": "\#(lab)"}, "profile": "\#(profile)"}"#)
            #expect(response?.status == 200, "\(response?.body ?? "")")
            let route = json(response?.body)
            #expect((route["distance"] as? Double ?? 0) > 100)
            #expect((route["eta"] as? Double ?? 0) > 0)
            let steps = route["steps"] as? [[String: Any]] ?? []
            #expect(steps.contains { ($0["instruction"] as? String)?.contains("level 3") == true })
            if profile == "accessible" { #expect(!steps.contains { $0["kind"] as? String == "stairs" }) }
        }
        let gallery = try await venueId(system, "Old%20Arts%20Gallery")
        let blocked = await system.post(
            "/v1/campus/routes",
            json: #"{"from": {"venueId": "\#(hall)"}, "to": {"venueId": "\#(gallery)"}, "profile": "accessible"}"#)
        #expect(blocked?.status == 422)
        #expect(blocked?.body.contains("no accessible route") == true)
        let off = await system.post(
            "/v1/campus/routes", json: #"{"from": {"lat": -25.70, "lon": 28.2314}, "to": {"venueId": "\#(hall)"}}"#)
        #expect(off?.status == 400)
        #expect(off?.body.contains("off the campus map") == true)
        #expect(
            await system.post(
                "/v1/campus/routes",
                json: #"{"from": {"venueId": "\#(hall)"}, "to": {"venueId": "\#(lab)"}, "profile": "fly"}"#)?
                .status == 400)
    }

    @Test("locate from a scan, outside campus Wi-Fi, GPS fallback; the access point registry")
    func locate() async throws {
        let system = try await startRouting()
        defer { _ = system.stopBlocking() }
        let list = await system.get("/v1/campus/access-points")
        let points = json(list?.body)["accessPoints"] as? [[String: Any]] ?? []
        #expect(points.count >= 20)
        let point = try #require(points.first { $0["name"] as? String == "LIB-L2-AP" })
        let bssid = try #require(point["bssid"] as? String)
        let located = await system.post(
            "/v1/campus/locate",
            json: #"{"scan": [{"bssid": "\#(bssid)", "rssi": -50}, {"bssid": "aa:aa:aa:aa:aa:aa", "rssi": -40}]}"#)
        #expect(located?.status == 200)
        #expect(json(located?.body)["level"] as? Int == 2)
        #expect(json(located?.body)["source"] as? String == "wifi")
        let outside = await system.post(
            "/v1/campus/locate", json: #"{"scan": [{"bssid": "aa:aa:aa:aa:aa:aa", "rssi": -40}]}"#)
        #expect(outside?.status == 422)
        #expect(outside?.body.contains("outside campus Wi-Fi") == true)
        let gps = await system.post(
            "/v1/campus/locate", json: #"{"scan": [], "gps": {"lat": -25.75, "lon": 28.23, "accuracy": 8}}"#)
        #expect(gps?.status == 200)
        #expect(json(gps?.body)["source"] as? String == "gps")
    }

    @Test("crowds: only a wifi_controller reports; counts show as people on campus and slow the route")
    func occupancy() async throws {
        let system = try await startRouting()
        defer { _ = system.stopBlocking() }
        let points = json(await system.get("/v1/campus/access-points")?.body)["accessPoints"] as? [[String: Any]] ?? []
        let counts = points.compactMap { $0["bssid"] as? String }.map { #"{"bssid": "\#($0)", "devices": 400}"# }
        let report = #"{"counts": [\#(counts.joined(separator: ",")), {"bssid": "ff:ff:ff:ff:ff:ff", "devices": 3}]}"#
        #expect(await system.post("/v1/campus/occupancy", json: report)?.status == 401)
        let user = try await token(system)
        #expect(await send(system, "POST", "/v1/campus/occupancy", body: report, token: user)?.status == 403)

        let hall = try await venueId(system, "Engineering%20Lecture%20Hall%201")
        let lab = try await venueId(system, "IT%204-1")
        let routeBody = #"{"from": {"venueId": "\#(hall)"}, "to": {"venueId": "\#(lab)"}}"#
        let controller = try await token(system, roles: ["wifi_controller"])
        let calm =
            #"{"counts": [\#(points.compactMap { $0["bssid"] as? String }.map { #"{"bssid": "\#($0)", "devices": 0}"# }.joined(separator: ","))]}"#
        #expect(await send(system, "POST", "/v1/campus/occupancy", body: calm, token: controller)?.status == 200)
        let before = json(await system.post("/v1/campus/routes", json: routeBody)?.body)["eta"] as? Double ?? 0

        let accepted = await send(system, "POST", "/v1/campus/occupancy", body: report, token: controller)
        #expect(accepted?.status == 200)
        #expect(json(accepted?.body)["accepted"] as? Int == points.count)
        #expect((json(accepted?.body)["unknown"] as? [String]) == ["ff:ff:ff:ff:ff:ff"])
        let now = json(await system.get("/v1/campus/occupancy")?.body)
        #expect(now["peopleOnCampus"] as? Int == 400 * points.count)
        let after = json(await system.post("/v1/campus/routes", json: routeBody)?.body)["eta"] as? Double ?? 0
        #expect(after > before * 2, "crowded everywhere: the ETA grows (\(before) → \(after))")
        _ = await send(system, "POST", "/v1/campus/occupancy", body: calm, token: controller)
    }

    @Test("admin: venues and access points maintained, the map re-imported; others get 403")
    func admin() async throws {
        let system = try await startRouting()
        defer { _ = system.stopBlocking() }
        let user = try await token(system)
        let admin = try await token(system, roles: ["admin"])
        let draft =
            #"{"name": "Tuks Robotics Lab \#(UUID().uuidString.prefix(6))", "kind": "lecture_hall", "level": 1, "lat": -25.7544, "lon": 28.2316}"#
        #expect(await send(system, "POST", "/v1/admin/campus/venues", body: draft, token: user)?.status == 403)
        // The role is checked before the body is read: a plain user's malformed body is a 403 too.
        #expect(await send(system, "POST", "/v1/admin/campus/venues", body: "{not json", token: user)?.status == 403)
        let created = await send(system, "POST", "/v1/admin/campus/venues", body: draft, token: admin)
        #expect(created?.status == 201)
        let unknownKind = draft.replacingOccurrences(of: #""kind": "lecture_hall""#, with: #""kind": "pub""#)
        let refused = await send(system, "POST", "/v1/admin/campus/venues", body: unknownKind, token: admin)
        #expect(refused?.status == 400)
        #expect((json(refused?.body)["details"] as? [String: Any])?["field"] as? String == "kind")
        let id = try #require(json(created?.body)["id"] as? String)
        let renamed = draft.replacingOccurrences(of: "Robotics", with: "Mechatronics")
        let updated = await send(system, "PUT", "/v1/admin/campus/venues/\(id)", body: renamed, token: admin)
        #expect(updated?.status == 200)
        #expect(json(updated?.body)["id"] as? String == id)
        let elsewhere = await send(system, "PUT", "/v1/admin/campus/venues/\(UUID())", body: renamed, token: admin)
        #expect(elsewhere?.status == 404)
        let noLevel = renamed.replacingOccurrences(of: #""level": 1, "#, with: "")
        let incomplete = await send(system, "PUT", "/v1/admin/campus/venues/\(id)", body: noLevel, token: admin)
        #expect(incomplete?.status == 400)
        #expect((json(incomplete?.body)["details"] as? [String: Any])?["field"] as? String == "level")
        #expect(await system.get("/v1/campus/venues/\(id)")?.body.contains("Mechatronics") == true)
        #expect(await send(system, "DELETE", "/v1/admin/campus/venues/\(id)", token: admin)?.status == 204)
        #expect(await system.get("/v1/campus/venues/\(id)")?.status == 404)

        // Positions are kept to 9 decimals: a venue 1e-300 degrees off the equator is on it, and
        // a nearby search measures 0 m instead of failing on a float underflow in PostgreSQL.
        let hair =
            #"{"name": "Hair \#(UUID().uuidString.prefix(6))", "kind": "landmark", "level": 0, "lat": 1e-300, "lon": -1e-300}"#
        let tiny = await send(system, "POST", "/v1/admin/campus/venues", body: hair, token: admin)
        #expect(tiny?.status == 201 && json(tiny?.body)["lat"] as? Double == 0, "\(tiny?.body ?? "")")
        let nearby = await system.get("/v1/campus/venues?near=0.000000001,0&radius=1")
        #expect(nearby?.status == 200, "\(nearby?.body ?? "")")
        #expect(await system.get("/v1/campus/venues?near=10,0&radius=0")?.status == 200)
        if let tinyId = json(tiny?.body)["id"] as? String {
            _ = await send(system, "DELETE", "/v1/admin/campus/venues/\(tinyId)", token: admin)
        }

        let ap = #"{"name": "test AP", "lat": -25.7546, "lon": 28.2315, "level": 0, "capacity": 50}"#
        #expect(
            await send(system, "PUT", "/v1/admin/campus/access-points/02:aa:00:00:00:01", body: ap, token: user)?.status
                == 403)
        #expect(
            await send(system, "PUT", "/v1/admin/campus/access-points/02:aa:00:00:00:01", body: ap, token: admin)?
                .status == 200)
        let scan = #"{"scan": [{"bssid": "02:aa:00:00:00:01", "rssi": -45}]}"#
        #expect(await system.post("/v1/campus/locate", json: scan)?.status == 200)
        #expect(
            await send(system, "DELETE", "/v1/admin/campus/access-points/02:aa:00:00:00:01", token: admin)?.status
                == 204)
        #expect(await system.post("/v1/campus/locate", json: scan)?.status == 422)

        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(
                "services/routing/RoutingService/Resources/navup-campus.osm")
        let osm = try String(contentsOf: sample, encoding: .utf8)
        #expect(
            await send(
                system, "POST", "/v1/admin/campus/import", body: osm, token: user, contentType: "application/xml")?
                .status == 403)
        #expect(
            await send(
                system, "POST", "/v1/admin/campus/import", body: "<nonsense", token: admin,
                contentType: "application/xml")?.status == 400)
        let imported = await send(
            system, "POST", "/v1/admin/campus/import", body: osm, token: admin, contentType: "application/xml")
        #expect(imported?.status == 200, "\(imported?.body ?? "")")
        #expect((json(imported?.body)["nodes"] as? Int ?? 0) >= 10_000)
        let hall = try await venueId(system, "Humanities%20Auditorium")
        let lab = try await venueId(system, "IT%202-27")
        let route = await system.post(
            "/v1/campus/routes", json: #"{"from": {"venueId": "\#(hall)"}, "to": {"venueId": "\#(lab)"}}"#)
        #expect(route?.status == 200, "routes are answered from the new map")
    }
}
