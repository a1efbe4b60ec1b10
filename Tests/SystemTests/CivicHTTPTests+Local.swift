import Foundation
import Testing

/// The San Luis Obispo City Council's sample file (members, votes, stated positions) imported at
/// start through `CIVIC_LOCAL_FILES`, an editor's stated position through the admin API, and the
/// sample district outlines answered by lookup, all over HTTP against the real executables.
extension CivicHTTPTests {
    static let council = "ocd-jurisdiction/country:us/state:ca/place:san_luis_obispo/government"

    static var sampleCouncilFile: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy/civic/san_luis_obispo_city_council.sample.json")
            .path
    }

    /// Broker, auth (with an admin), civic (the sample council file, no scheduled feed import) and the gateway.
    func startCouncilSystem(admin: String) async throws -> SystemHarness {
        let system = try SystemHarness(ownDatabase: true)
        try system.start("broker")
        try system.start("auth", extra: ["ADMIN_USERNAME": admin, "ADMIN_PASSWORD": "Admin2026x"])
        try system.start(
            "civic", extra: ["CIVIC_LOCAL_FILES": Self.sampleCouncilFile, "CIVIC_IMPORT_INTERVAL_S": "0"])
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth,civic"])
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(await system.get("/readyz")?.status == 200, "\(system.logs())")
        return system
    }

    @Test("the sample San Luis Obispo City Council over HTTP: members with terms, votes and stated positions; an editor's position entered, shown, refused and removed")
    func localCouncil() async throws {
        let adminName = "civic-editor-\(UUID().uuidString.prefix(6))"
        let system = try await startCouncilSystem(admin: adminName)
        defer { _ = system.stopBlocking() }
        let council = Self.council.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let list = try #require(await system.get("/v1/civic/people?jurisdiction=\(council)"))
        let people = try #require(json(list.body)["items"] as? [[String: Any]])
        #expect(list.status == 200 && people.count == 5, "\(list.body)")
        #expect(people.filter { $0["office"] as? String == "Mayor" }.count == 1)
        #expect(people.filter { $0["office"] as? String == "Council Member" }.count == 4)
        #expect(people.allSatisfy { $0["district"] == nil && $0["chamber"] as? String == "legislature" })
        var available = 0
        for person in people {
            let detail = json(await system.get("/v1/civic/people/\(person["id"] as? String ?? "")")?.body)
            #expect(detail["sample"] as? Bool == true)
            let terms = try #require(detail["terms"] as? [[String: Any]])
            #expect(terms.last?["office"] as? String == person["office"] as? String)
            let positions = detail["positions"] as? [[String: Any]] ?? []
            if detail["positionsUnavailable"] as? Bool == false && !positions.isEmpty { available += 1 }
            for stated in positions where stated["kind"] as? String == "stated" {
                #expect(stated["sourceUrl"] is String && stated["checkedOn"] is String)
            }
        }
        #expect(available == 5, "every sample member has a vote on an active item or a stated position")

        // An editor enters a stated position by hand.
        let mayor = try #require(people.first { $0["office"] as? String == "Mayor" }?["id"] as? String)
        let bills = json(await system.get("/v1/civic/bills?jurisdiction=\(council)&q=climate")?.body)
        let bill = try #require((bills["items"] as? [[String: Any]])?.first?["id"] as? String)
        let path = "/v1/admin/civic/people/\(mayor)/positions/\(bill)"
        let before = try #require(await system.get("/v1/civic/people/\(mayor)"))
        let body = #"""
            {"position": "support", "statedOn": "2026-12-01", "sourceUrl": "https://example.org/mayor-letter",
             "checkedOn": "2026-12-02"}
            """#
        #expect(await system.send("PUT", path, json: body)?.status == 401)
        _ = await system.post(
            "/v1/auth/register", json: #"{"username": "civic-reader@example.org", "password": "Civic2026x"}"#)
        let userLogin = await system.post(
            "/v1/auth/login", json: #"{"username": "civic-reader@example.org", "password": "Civic2026x"}"#)
        let user = try #require(json(userLogin?.body)["accessToken"] as? String)
        #expect(await system.send("PUT", path, json: body, headers: ["Authorization": "Bearer \(user)"])?.status == 403)
        let login = await system.post("/v1/auth/login", json: #"{"username": "\#(adminName)", "password": "Admin2026x"}"#)
        let admin = ["Authorization": "Bearer \(try #require(json(login?.body)["accessToken"] as? String))"]
        let saved = try #require(await system.send("PUT", path, json: body, headers: admin))
        #expect(saved.status == 200 && json(saved.body)["created"] as? Bool == true, "\(saved.body)")
        let after = try #require(await system.get("/v1/civic/people/\(mayor)"))
        #expect(after.header("ETag") != before.header("ETag"), "the person's reply changed, and its tag")
        let stated = (json(after.body)["positions"] as? [[String: Any]])?.first {
            $0["kind"] as? String == "stated" && $0["billId"] as? String == bill
        }
        #expect(stated?["position"] as? String == "support" && stated?["checkedOn"] as? String == "2026-12-02")
        #expect(stated?["sourceUrl"] as? String == "https://example.org/mayor-letter")
        let again = try #require(await system.send("PUT", path, json: body, headers: admin))
        #expect(again.status == 200 && json(again.body)["created"] as? Bool == false)
        for (bad, field) in [
            (body.replacingOccurrences(of: "support", with: "maybe"), "position"),
            (body.replacingOccurrences(of: "2026-12-02", with: "2026-11-30"), "checkedOn"),
            (body.replacingOccurrences(of: "https://", with: "ftp://"), "sourceUrl"),
            (#"{"position": "support"}"#, "statedOn"),
        ] {
            let answer = await system.send("PUT", path, json: bad, headers: admin)
            #expect(answer?.status == 400, "\(field): \(answer?.body ?? "")")
            #expect((json(answer?.body)["details"] as? [String: Any])?["field"] as? String == field, "\(answer?.body ?? "")")
        }
        #expect(
            await system.send(
                "PUT", "/v1/admin/civic/people/\(mayor)/positions/\(UUID().uuidString)", json: body, headers: admin)?
                .status == 404)
        #expect(await system.send("DELETE", path, headers: admin)?.status == 204)
        #expect(await system.send("DELETE", path, headers: admin)?.status == 404)
        let removed = json(await system.get("/v1/civic/people/\(mayor)")?.body)["positions"] as? [[String: Any]]
        #expect(removed?.contains { $0["billId"] as? String == bill && $0["kind"] as? String == "stated" } == false)

        // A bad file stops civic at start, naming the file and the field.
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("civic-local-\(UUID()).json")
        try Data(#"{"format": "politimap-local/1", "jurisdiction": {"id": "nope", "name": "X"}}"#.utf8).write(to: bad)
        defer { try? FileManager.default.removeItem(at: bad) }
        let (status, output) = try await system.runToEnd(
            "civic", arguments: [], extra: ["CIVIC_LOCAL_FILES": bad.path, "CIVIC_IMPORT_INTERVAL_S": "0"])
        #expect(status == 78 && output.contains("CIVIC_LOCAL_FILES=\(bad.path) is not valid"), "\(output)")
        #expect(output.contains("jurisdiction.id"), "\(output)")
        let statuses = await system.stopAll()
        #expect(statuses.allSatisfy { $0.1 == 0 }, "\(statuses)")
    }

    @Test("sample districts over HTTP: a metre either side of each chamber's line answers the district on that side; coastal towns find the county")
    func sampleDistricts() async throws {
        let system = try SystemHarness(ownDatabase: true)
        defer { _ = system.stopBlocking() }
        try system.start("broker")
        try system.start("civic", extra: ["CIVIC_IMPORT_INTERVAL_S": "0"])
        try system.start("gateway", extra: ["READINESS_SERVICES": "civic"])
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(await system.get("/readyz")?.status == 200, "\(system.logs())")
        /// The districts of `level` and `chamber` a lookup answers for the point.
        func seats(_ lat: Double, _ lon: Double, _ level: String, _ chamber: String) async -> [String] {
            let answer = await system.send("POST", "/v1/civic/lookup", json: #"{"lat": \#(lat), "lon": \#(lon)}"#)
            let matches = json(answer?.body)["jurisdictions"] as? [[String: Any]] ?? []
            return matches.filter {
                ($0["jurisdiction"] as? [String: Any])?["level"] as? String == level && $0["chamber"] as? String == chamber
            }.compactMap { $0["district"] as? String }
        }
        // (lat, lon) on the line, 1e-5° (about a metre) across it, the districts on the + and - sides.
        let lines: [(Double, Double, Double, Double, String, String, String, String)] = [
            (35.22, -120.45, 1e-5, 0, "state", "lower", "30", "37"),
            (35.35, -120.55, 0, 1e-5, "state", "upper", "21", "17"),
            (35.45, -120.45, 1e-5, 0, "federal", "lower", "CA-19", "CA-24"),
        ]
        for (lat, lon, dLat, dLon, level, chamber, plus, minus) in lines {
            #expect(await seats(lat + dLat, lon + dLon, level, chamber) == [plus], "\(level) \(chamber) +")
            #expect(await seats(lat - dLat, lon - dLon, level, chamber) == [minus], "\(level) \(chamber) -")
        }
        for (town, lat, lon) in [
            ("Cambria", 35.5641, -121.0807), ("San Simeon", 35.6436, -121.1903), ("Morro Bay", 35.3658, -120.8499),
            ("Pismo Beach", 35.1428, -120.6413), ("Nipomo", 35.0428, -120.4760), ("Paso Robles", 35.6266, -120.6910),
        ] {
            let answer = await system.send("POST", "/v1/civic/lookup", json: #"{"lat": \#(lat), "lon": \#(lon)}"#)
            let matches = json(answer?.body)["jurisdictions"] as? [[String: Any]] ?? []
            let levels = matches.compactMap { ($0["jurisdiction"] as? [String: Any])?["level"] as? String }
            #expect(levels.filter { $0 == "county" }.count == 1, "\(town): \(answer?.body ?? "")")
            #expect(levels.filter { $0 == "state" }.count == 2 && levels.filter { $0 == "federal" }.count == 1, "\(town)")
        }
        let outlines = json(await system.get("/v1/civic/boundaries")?.body)["features"] as? [[String: Any]] ?? []
        let samples = outlines.filter { ($0["properties"] as? [String: Any])?["sample"] as? Bool == true }
        #expect(samples.count == 6, "the six sample districts say so")
        let statuses = await system.stopAll()
        #expect(statuses.allSatisfy { $0.1 == 0 }, "\(statuses)")
    }
}
