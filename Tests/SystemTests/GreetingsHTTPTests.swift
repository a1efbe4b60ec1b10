import Foundation
import Testing

/// PostcardBuddy's greetings through HTTP (gateway, broker, auth, orders and printing as
/// processes): templates in the language asked for, place-based suggestions from the GeoNames
/// gazetteer, saved greetings per user, and positions in no log or table.
@Suite("greetings over HTTP (real processes)", .serialized)
struct GreetingsHTTPTests {
    let orders = OrdersHTTPTests()

    /// The gazetteer `deploy/scripts/gazetteer.sh` made: `GAZETTEER_FILE`, else the repository's.
    static var gazetteerFile: String {
        ProcessInfo.processInfo.environment["GAZETTEER_FILE"]
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".data/gazetteer/cities15000.tsv").path
    }

    func start() async throws -> SystemHarness {
        try #require(
            FileManager.default.fileExists(atPath: Self.gazetteerFile),
            "\(Self.gazetteerFile) is missing: run deploy/scripts/gazetteer.sh")
        let system = try SystemHarness(ownDatabase: true)
        try system.start("broker")
        try system.start("auth")
        try system.start("orders")
        try system.start(
            "printing",
            extra: [
                "DATA_DIR": system.logDirectory.appendingPathComponent("printing").path,
                "GAZETTEER_FILE": Self.gazetteerFile,
            ])
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth,orders,printing"])
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        try #require(await system.get("/readyz")?.status == 200, "\(system.logs())")
        return system
    }

    func items(_ body: String) -> [[String: Any]] { orders.json(body)["items"] as? [[String: Any]] ?? [] }

    @Test(
        "templates: 11 per occasion in en, sv and af; lang, else Accept-Language by q-value, in Content-Language; unknown occasion 400 naming it"
    )
    func templates() async throws {
        let system = try await start()
        defer { _ = system.stopBlocking() }
        let anyone = OrdersHTTPTests.Client(port: system.httpPort, token: nil)
        let all = await anyone.send("GET", "/v1/greetings/templates")
        #expect(all.status == 200 && all.header("Content-Language") == "en", "\(all.head)")
        #expect(all.header("Vary")?.contains("Accept-Language") == true)
        #expect(items(all.body).count == 66)
        for occasion in ["holiday", "birthday", "thanks", "travel", "congratulations", "seasonal"] {
            for lang in ["en", "sv", "af"] {
                let answer = await anyone.send("GET", "/v1/greetings/templates?occasion=\(occasion)&lang=\(lang)")
                #expect(answer.status == 200 && answer.header("Content-Language") == lang)
                #expect(orders.json(answer.body)["language"] as? String == lang)
                let list = items(answer.body)
                #expect(
                    list.count == 11 && list.allSatisfy { $0["occasion"] as? String == occasion }, "\(occasion) \(lang)"
                )
            }
        }
        let negotiated: [(String, String)] = [
            ("sv-SE,sv;q=0.9,en;q=0.5", "sv"), ("de-DE, af;q=0.8, en;q=0.7", "af"), ("en;q=0.2, af-ZA;q=0.9", "af"),
            ("fr, de", "en"), ("af;q=0, de", "en"),
        ]
        for (header, expected) in negotiated {
            let answer = await anyone.send(
                "GET", "/v1/greetings/templates?occasion=birthday", headers: ["Accept-Language": header])
            #expect(answer.header("Content-Language") == expected, "\(header)")
            #expect(orders.json(answer.body)["language"] as? String == expected)
        }
        let swedish = await anyone.send(
            "GET", "/v1/greetings/templates?occasion=birthday", headers: ["Accept-Language": "sv"])
        #expect(items(swedish.body).first?["text"] as? String == "Grattis på födelsedagen!")
        let override = await anyone.send(
            "GET", "/v1/greetings/templates?occasion=thanks&lang=af", headers: ["Accept-Language": "sv"])
        #expect(
            override.header("Content-Language") == "af"
                && items(override.body).first?["text"] as? String == "Baie dankie!")
        let unknown = await anyone.send("GET", "/v1/greetings/templates?occasion=xmas")
        #expect(unknown.status == 400 && unknown.body.contains("xmas"), "\(unknown.body)")
        let badLang = await anyone.send("GET", "/v1/greetings/templates?lang=de")
        #expect(badLang.status == 400 && badLang.body.contains("lang"), "\(badLang.body)")
        let statuses = await system.stopAll()
        #expect(statuses.allSatisfy { $0.1 == 0 }, "\(statuses)")
    }

    @Test(
        "suggestions name the nearest place (Lund, Stellenbosch, Pretoria) in the chosen language; positions reach no log or table"
    )
    func suggestions() async throws {
        let system = try await start()
        defer { _ = system.stopBlocking() }
        let (user, _) = try await orders.signUp(system, "greta")
        #expect(
            await OrdersHTTPTests.Client(port: system.httpPort, token: nil)
                .send("GET", "/v1/greetings/suggestions?lat=55.7047&lon=13.191").status == 401)
        // Digits found nowhere else: each position is a known place plus a distinctive tail.
        let known: [(String, String, String, String, String)] = [
            ("55.70471937", "13.19104729", "sv", "Lund", "Hälsningar från Lund!"),
            ("-33.93461583", "18.86002957", "af", "Stellenbosch", "Groete uit Stellenbosch!"),
            ("-25.74611847", "28.18813659", "en", "Pretoria", "Greetings from Pretoria!"),
        ]
        var fragments: [String] = []
        for (lat, lon, lang, place, greeting) in known {
            fragments += [String(lat.suffix(8)), String(lon.suffix(8))]
            let answer = await user.send(
                "GET", "/v1/greetings/suggestions?lat=\(lat)&lon=\(lon)",
                headers: ["Accept-Language": "\(lang);q=0.9, de"])
            #expect(answer.status == 200, "\(answer.body)")
            #expect(answer.header("Content-Language") == lang)
            let body = orders.json(answer.body)
            #expect((body["place"] as? [String: Any])?["name"] as? String == place, "\(answer.body)")
            #expect(items(answer.body).first?["text"] as? String == greeting)
        }
        let sea = await user.send("GET", "/v1/greetings/suggestions?lat=0.00012345&lon=-30.00067891")
        fragments += ["00012345", "00067891"]
        #expect(sea.status == 200 && orders.json(sea.body)["place"] == nil, "\(sea.body)")
        #expect(items(sea.body).count == 5)
        for bad in [
            "lat=55.7", "lon=13.2", "", "lat=91&lon=0", "lat=abc&lon=1", "lat=1&lon=1&imageId=x", "lat=1&lon=1&lang=xx",
        ] {
            let answer = await user.send("GET", "/v1/greetings/suggestions?\(bad)")
            #expect(answer.status == 400, "\(bad): \(answer.body)")
        }
        #expect(await user.send("GET", "/v1/greetings/suggestions?imageId=\(UUID())").status == 404)

        let statuses = await system.stopAll()
        #expect(statuses.allSatisfy { $0.1 == 0 }, "\(statuses)")
        let logs = system.logs()
        #expect(logs.contains("/v1/greetings/suggestions"), "the requests were logged")
        let database = try Self.dump(system.databaseURL)
        #expect(
            database.contains("saved_greetings") || database.contains("printing"), "the dump holds printing's tables")
        for fragment in fragments {
            #expect(!logs.contains(fragment), "a coordinate (\(fragment)) is in a log")
            #expect(!database.contains(fragment), "a coordinate (\(fragment)) is in the database")
        }
    }

    @Test(
        "saved greetings: 201, a retry answers the same one, listed newest first per user, another's delete 404, limits 400; gone with the account"
    )
    func savedGreetings() async throws {
        let system = try await start()
        defer { _ = system.stopBlocking() }
        let (ann, _) = try await orders.signUp(system, "ann")
        let (bob, _) = try await orders.signUp(system, "bob")
        #expect(
            await OrdersHTTPTests.Client(port: system.httpPort, token: nil).send("GET", "/v1/me/greetings").status
                == 401)
        let saved = await ann.send(
            "POST", "/v1/me/greetings", json: #"{"text": "Groete uit Pretoria!", "occasion": "travel"}"#)
        #expect(saved.status == 201, "\(saved.body)")
        let id = try #require(orders.json(saved.body)["id"] as? String)
        let again = await ann.send(
            "POST", "/v1/me/greetings", json: #"{"text": "Groete uit Pretoria!", "occasion": "travel"}"#)
        #expect(orders.json(again.body)["id"] as? String == id)
        let second = await ann.send("POST", "/v1/me/greetings", json: #"{"text": "Tack för allt!", "occasion": null}"#)
        #expect(second.status == 201 && orders.json(second.body)["occasion"] == nil, "\(second.body)")
        let list = await ann.send("GET", "/v1/me/greetings?limit=1")
        #expect(list.status == 200 && items(list.body).count == 1)
        let cursor = try #require(orders.json(list.body)["nextCursor"] as? String)
        let rest = await ann.send("GET", "/v1/me/greetings?limit=1&cursor=\(cursor)")
        #expect(items(rest.body).first?["id"] as? String == id, "the older one second")
        #expect(items(await bob.send("GET", "/v1/me/greetings").body).isEmpty)

        #expect(await bob.send("DELETE", "/v1/me/greetings/\(id)").status == 404)
        #expect(await ann.send("DELETE", "/v1/me/greetings/\(id)").status == 204)
        #expect(await ann.send("DELETE", "/v1/me/greetings/\(id)").status == 404)
        let tooLong = String(repeating: "a", count: 501)
        for body in [#"{"text": "\#(tooLong)"}"#, #"{"text": "   "}"#, #"{"text": "Hi", "occasion": "xmas"}"#, #"{}"#] {
            let answer = await ann.send("POST", "/v1/me/greetings", json: body)
            #expect(answer.status == 400, "\(answer.body)")
        }
        #expect(await ann.send("GET", "/v1/me/greetings?cursor=nonsense").status == 400)

        // A deleted account's greetings go with it (printing consumes auth.account_deleted).
        #expect(try Self.psql(system.databaseURL, "SELECT count(*) FROM printing.saved_greetings") == "1")
        #expect(await ann.send("DELETE", "/v1/me").status == 204)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline,
            try Self.psql(system.databaseURL, "SELECT count(*) FROM printing.saved_greetings") != "0"
        {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(try Self.psql(system.databaseURL, "SELECT count(*) FROM printing.saved_greetings") == "0")
        let statuses = await system.stopAll()
        #expect(statuses.allSatisfy { $0.1 == 0 }, "\(statuses)")
    }

    /// The one value `sql` answers, as text (`psql -tA`).
    static func psql(_ url: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", url, "-tAc", sql]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every row of the database as text (`pg_dump --data-only`).
    static func dump(_ url: String) throws -> String {
        let dump = Process()
        dump.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        dump.arguments = ["pg_dump", "--data-only", url]
        let pipe = Pipe()
        dump.standardOutput = pipe
        dump.standardError = FileHandle.nullDevice
        try dump.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        dump.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
