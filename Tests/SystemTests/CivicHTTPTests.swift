import Foundation
import Glibc
import Testing

/// PolitiMap through HTTP: gateway, broker, auth and civic as real processes, civic importing
/// from the Open States stand-in (a Python process) at start.
@Suite("civic over HTTP (real processes)", .serialized)
struct CivicHTTPTests {
    static let apiKey = "standin-key-\(UUID().uuidString.prefix(8))"

    /// The stand-in feed on a free port, with an API key.
    func startStandin() async throws -> (Process, Int) {
        let port = try SystemHarness.freePort()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy/openstates-standin/standin.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        process.environment = ProcessInfo.processInfo.environment.merging([
            "STANDIN_PORT": "\(port)", "STANDIN_SCALE": "0.1", "STANDIN_API_KEY": Self.apiKey,
        ]) { _, new in new }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<100 {
            if await offPool({ HTTP.request(port: port, method: "GET", path: "/_standin/stats") })?.status == 200 {
                return (process, port)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.terminate()
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the stand-in did not start"])
    }

    func json(_ body: String?) -> [String: Any] {
        guard let body, let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
            return [:]
        }
        return object
    }

    @Test("every civic endpoint over HTTP: imported bills, people, meetings; ETag and 304; bookmarks; editors' highlights")
    func endpoints() async throws {
        let (standin, feedPort) = try await startStandin()
        defer {
            kill(standin.processIdentifier, SIGKILL)
            standin.waitUntilExit()
        }
        SecretLedger.note(Self.apiKey, as: "feed API key")
        let system = try SystemHarness(ownDatabase: true)
        defer { _ = system.stopBlocking() }
        let adminName = "civic-admin-\(UUID().uuidString.prefix(6))"
        try system.start("broker")
        try system.start("auth", extra: ["ADMIN_USERNAME": adminName, "ADMIN_PASSWORD": "Admin2026x"])
        try system.start(
            "civic",
            extra: ["CIVIC_FEED_URL": "http://127.0.0.1:\(feedPort)", "CIVIC_FEED_API_KEY": Self.apiKey])
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth,civic"])
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(await system.get("/readyz")?.status == 200, "\(system.logs())")
        // The import runs at start: wait until the four jurisdictions' meetings are in.
        var meetings = 0
        while Date() < deadline.addingTimeInterval(60), meetings < 34 {
            meetings = (json(await system.get("/v1/civic/meetings?limit=100")?.body)["items"] as? [Any])?.count ?? 0
            try await Task.sleep(for: .milliseconds(300))
        }
        #expect(meetings == 34, "\(system.logs())")

        // Jurisdictions, cacheable.
        let jurisdictions = try #require(await system.get("/v1/civic/jurisdictions"))
        #expect(jurisdictions.status == 200)
        #expect((json(jurisdictions.body)["items"] as? [[String: Any]])?.compactMap { $0["level"] as? String }
            == ["local", "county", "state", "federal"])
        let tag = try #require(jurisdictions.header("ETag"))
        #expect(jurisdictions.header("Cache-Control") == "public, max-age=60")
        let again = try #require(await system.get("/v1/civic/jurisdictions", headers: ["If-None-Match": tag]))
        #expect(again.status == 304 && again.body.isEmpty && again.header("ETag") == tag)
        #expect(await system.get("/v1/civic/jurisdictions", headers: ["If-None-Match": "\"other\""])?.status == 200)

        // Bills: pages, search with a typo, detail, 304, 400 and 404.
        let page = try #require(await system.get("/v1/civic/bills?level=state&limit=5"))
        #expect(page.status == 200 && page.header("ETag") != nil)
        let items = try #require(json(page.body)["items"] as? [[String: Any]])
        #expect(items.count == 5 && json(page.body)["nextCursor"] is String)
        let billId = try #require(items.first?["id"] as? String)
        let pageTag = try #require(page.header("ETag"))
        #expect(
            await system.get("/v1/civic/bills?level=state&limit=5", headers: ["If-None-Match": pageTag])?.status == 304)
        let typo = json(await system.get("/v1/civic/bills?q=grondwater&limit=100")?.body)["items"] as? [[String: Any]]
        #expect(typo?.isEmpty == false)
        #expect(typo?.allSatisfy { "\($0["title"] ?? "") \($0["summary"] ?? "")".contains("groundwater") } == true)
        let bill = try #require(await system.get("/v1/civic/bills/\(billId)"))
        #expect(bill.status == 200 && bill.header("ETag") != nil)
        #expect((json(bill.body)["summary"] as? [String: Any])?["id"] as? String == billId)
        #expect(await system.get("/v1/civic/bills/\(UUID().uuidString)")?.status == 404)
        let bad = await system.get("/v1/civic/bills?topic=nope")
        #expect(bad?.status == 400 && (json(bad?.body)["details"] as? [String: Any])?["field"] as? String == "topic")
        #expect(await system.get("/v1/civic/bills?level=city")?.status == 400)

        // The public reads are pass-through routes: civic's bytes with their tag, 304 for a
        // current copy (any of a list), Cache-Control on both; bad parameters are 400s naming them.
        let billTag = try #require(bill.header("ETag"))
        #expect(bill.header("Cache-Control") == "public, max-age=60")
        #expect(bill.header("Content-Type")?.hasPrefix("application/json") == true)
        let current = try #require(
            await system.get("/v1/civic/bills/\(billId)", headers: ["If-None-Match": "\"stale\", W/\(billTag)"]))
        #expect(current.status == 304 && current.body.isEmpty)
        #expect(current.header("ETag") == billTag && current.header("Cache-Control") == "public, max-age=60")
        let kept = try #require(await system.get("/v1/civic/bills/\(billId)"))
        #expect(kept.header("ETag") == billTag && kept.body == bill.body)
        #expect(await system.get("/v1/civic/bills/\(billId)", headers: ["If-None-Match": "\"stale\""])?.status == 200)
        for (path, field) in [
            ("/v1/civic/bills?limit=abc", "limit"), ("/v1/civic/bills?limit=0", "limit"),
            ("/v1/civic/bills?limit=101", "limit"), ("/v1/civic/bills?status=pending", "status"),
            ("/v1/civic/bills?sort=alphabetical", "sort"), ("/v1/civic/bills?updatedSince=yesterday", "updatedSince"),
            ("/v1/civic/bills?level=state&level=local", "level"), ("/v1/civic/bills?cursor=abc", "cursor"),
            ("/v1/civic/bills?q=%21%21%21", "q"), ("/v1/civic/highlights?level=city", "level"),
            ("/v1/civic/people?limit=201", "limit"), ("/v1/civic/people?cursor=abc", "cursor"),
            ("/v1/civic/people?chamber=senate", "chamber"), ("/v1/civic/people?chamber=upper&chamber=lower", "chamber"),
            ("/v1/civic/meetings?from=soon", "from"), ("/v1/civic/meetings?limit=x", "limit"),
            ("/v1/civic/meetings/next", "body"), ("/v1/civic/meetings/next?body=%20%20", "body"),
        ] {
            let answer = await system.get(path)
            #expect(answer?.status == 400, "\(path)")
            let error = json(answer?.body)
            #expect((error["details"] as? [String: Any])?["field"] as? String == field, "\(path): \(answer?.body ?? "")")
            #expect(error["code"] as? String == "invalid_argument" && (error["message"] as? String)?.isEmpty == false)
            #expect(answer?.header("ETag") == nil && answer?.header("Cache-Control") == nil, "\(path)")
        }
        let updated = await system.get("/v1/civic/bills?updatedSince=2026-01-01T00:00:00.5%2B01:00&limit=1")
        #expect(updated?.status == 200, "\(updated?.body ?? "")")

        // Topics, highlights, people, meetings.
        #expect(await system.get("/v1/civic/topics")?.status == 200)
        #expect(await system.get("/v1/civic/highlights?level=local")?.status == 200)
        let people = try #require(await system.get("/v1/civic/people?district=35"))
        let persons = try #require(json(people.body)["items"] as? [[String: Any]])
        #expect(people.status == 200 && persons.count == 2)
        #expect(Set(persons.compactMap { $0["chamber"] as? String }) == ["upper", "lower"])
        // The Assembly's district 35 alone, as a lookup's match names it: district and chamber.
        let assembly = try #require(await system.get("/v1/civic/people?district=35&chamber=lower"))
        let members = try #require(json(assembly.body)["items"] as? [[String: Any]])
        #expect(assembly.status == 200 && members.count == 1 && members.first?["chamber"] as? String == "lower")
        #expect(members.first?["office"] as? String == "Assemblymember")
        let personId = try #require(persons.first?["id"] as? String)
        let personReply = try #require(await system.get("/v1/civic/people/\(personId)"))
        let person = json(personReply.body)
        let personTag = try #require(personReply.header("ETag"))
        #expect(await system.get("/v1/civic/people/\(personId)", headers: ["If-None-Match": personTag])?.status == 304)
        #expect(await system.get("/v1/civic/people/\(UUID().uuidString)")?.status == 404)
        #expect((person["facts"] as? [String: Any])?["name"] != nil && person["positionsUnavailable"] is Bool)
        let next = await system.get("/v1/civic/meetings/next?body=San%20Luis%20Obispo%20City%20Council")
        #expect(next?.status == 200 && json(next?.body)["body"] as? String == "San Luis Obispo City Council")
        #expect(next?.header("Cache-Control") == "public, max-age=60" && next?.header("ETag") == nil)
        #expect(await system.get("/v1/civic/meetings/next?body=Nobody")?.status == 404)
        #expect(
            await system.get("/v1/civic/meetings?from=2026-12-01T00:00:00Z&to=2026-11-01T00:00:00Z")?.status == 400)

        // Bookmarks need an account; each account has its own.
        func token(_ name: String, _ password: String, register: Bool = true) async throws -> String {
            if register {
                _ = await system.postPatiently(
                    "/v1/auth/register", json: #"{"username": "\#(name)", "password": "\#(password)"}"#)
            }
            let login = await system.postPatiently(
                "/v1/auth/login", json: #"{"username": "\#(name)", "password": "\#(password)"}"#)
            return try #require(json(login?.body)["accessToken"] as? String)
        }
        let user = try await token("civic-\(UUID().uuidString.prefix(8))", "Civic2026x")
        let auth = ["Authorization": "Bearer \(user)"]
        #expect(await system.send("PUT", "/v1/me/bill-bookmarks/\(billId)")?.status == 401)
        #expect(await system.send("PUT", "/v1/me/bill-bookmarks/\(billId)", headers: auth)?.status == 201)
        #expect(await system.send("PUT", "/v1/me/bill-bookmarks/\(billId)", headers: auth)?.status == 200)
        #expect(await system.send("GET", "/v1/me/bill-bookmarks/\(billId)", headers: auth)?.status == 200)
        let list = json(await system.send("GET", "/v1/me/bill-bookmarks", headers: auth)?.body)
        #expect((list["items"] as? [[String: Any]])?.compactMap { $0["billId"] as? String } == [billId])
        #expect(await system.send("DELETE", "/v1/me/bill-bookmarks/\(billId)", headers: auth)?.status == 204)
        #expect(await system.send("DELETE", "/v1/me/bill-bookmarks/\(billId)", headers: auth)?.status == 404)
        #expect(await system.send("PUT", "/v1/me/bill-bookmarks/\(UUID().uuidString)", headers: auth)?.status == 404)

        // Highlights: a user is refused, an admin (who holds civic_editor) pins a bill for its level.
        let highlight = #"{"highlighted": true}"#
        #expect(await system.send("PUT", "/v1/admin/civic/highlights/\(billId)", json: highlight)?.status == 401)
        #expect(
            await system.send("PUT", "/v1/admin/civic/highlights/\(billId)", json: highlight, headers: auth)?.status
                == 403)
        let admin = try await token(adminName, "Admin2026x", register: false)
        #expect(
            await system.send(
                "PUT", "/v1/admin/civic/highlights/\(billId)", json: highlight,
                headers: ["Authorization": "Bearer \(admin)"])?.status == 204)
        // The body takes `highlighted` alone: another member is civic's 400, naming the body.
        let extra = await system.send(
            "PUT", "/v1/admin/civic/highlights/\(billId)", json: #"{"highlighted": true, "pinned": true}"#,
            headers: ["Authorization": "Bearer \(admin)"])
        #expect(extra?.status == 400 && (json(extra?.body)["details"] as? [String: Any])?["field"] as? String == "body")
        let state = json(await system.get("/v1/civic/highlights?level=state")?.body)["levels"] as? [[String: Any]]
        #expect(((state?.first?["bills"] as? [[String: Any]])?.first?["id"] as? String) == billId)
        let statuses = await system.stopAll()
        #expect(statuses.allSatisfy { $0.1 == 0 }, "\(statuses)")
    }

    @Test("lookups keep nothing: after 40 distinctive points and malformed bodies holding distinctive digits, no table, log line (gateway's or civic's), metric, event or refusal holds one")
    func lookupsKeepNothing() async throws {
        let (standin, feedPort) = try await startStandin()
        defer {
            kill(standin.processIdentifier, SIGKILL)
            standin.waitUntilExit()
        }
        let system = try SystemHarness(ownDatabase: true)
        defer { _ = system.stopBlocking() }
        try system.start("broker")
        try system.start(
            "civic",
            extra: ["CIVIC_FEED_URL": "http://127.0.0.1:\(feedPort)", "CIVIC_FEED_API_KEY": Self.apiKey])
        try system.start("gateway", extra: ["READINESS_SERVICES": "civic"])
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(await system.get("/readyz")?.status == 200, "\(system.logs())")
        // Points around San Luis Obispo whose digits are found nowhere else: 35.28xxx1x7, -120.66xxx3x9.
        var fragments: [String] = []
        for index in 0..<40 {
            let lat = String(format: "35.28%03d1%d7", index, index % 10)
            let lon = String(format: "-120.66%03d3%d9", index, index % 10)
            fragments += [String(lat.dropFirst(3)), String(lon.dropFirst(5))]
            let answer = await system.send("POST", "/v1/civic/lookup", json: #"{"lat": \#(lat), "lon": \#(lon)}"#)
            #expect(answer?.status == 200)
            let found = (json(answer?.body)["jurisdictions"] as? [[String: Any]])?.count
            #expect(found == 5, "\(answer?.body ?? "")")
        }
        let bad = await system.send("POST", "/v1/civic/lookup", json: #"{"lat": 95.123456789, "lon": 0}"#)
        #expect(bad?.status == 400)
        #expect((json(bad?.body)["message"] as? String) == "lat: a number from -90 to 90 is required")
        fragments.append("123456789")
        // Malformed bodies (the gateway forwards the body as it came; civic reads it): the i-th
        // holds the digits 8642ii917, found nowhere else; each refusal names a member, never the body.
        func token(_ index: Int) -> String { "8642" + String(format: "%02d", index) + "917" }
        let malformed: [(body: String, status: Int, field: String)] = [
            (#"{"lat": "35.2\#(token(0))", "lon": -120.66}"#, 400, "lat"),
            (#"{"lat": 35.28, "lon": [-120.6\#(token(1))]}"#, 400, "lon"),
            (#"{"lat": 35.28, "lon": -1e\#(token(2))}"#, 400, "lon"),
            (#"{"lat": 1e\#(token(3)), "lon": -120.66}"#, 400, "lat"),
            (#"{"lon": -120.6\#(token(4))}"#, 400, "lat"),
            (#"{"lat": 35.2\#(token(5)), "lon": -120.66, "alt": \#(token(5))}"#, 400, "body"),
            (#"{"lat": 35.28, "lon": -120.66, "p\#(token(6))": 1}"#, 400, "body"),
            (#"{"lat": 35.2\#(token(7)), "lon": -120.66"#, 400, "body"),
            (#"{"lat": 35.2\#(token(8)), "lon": tru\#(token(8))}"#, 400, "body"),
            ("lat=35.2\(token(9))&lon=-120.6\(token(9))", 400, "body"),
            ("[35.2\(token(10)), -120.6\(token(10))]", 400, "body"),
            (#"{"lat": 35.28, "lon": -120.66, "pad": ""# + String(repeating: "\(token(11)) ", count: 120) + "\"}", 413, "body"),
        ]
        for (index, (body, status, field)) in malformed.enumerated() {
            fragments.append(token(index))
            let answer = await system.send("POST", "/v1/civic/lookup", json: body)
            #expect(answer?.status == status, "\(body.prefix(60)) → \(answer?.body ?? "")")
            #expect((json(answer?.body)["details"] as? [String: Any])?["field"] as? String == field, "\(answer?.body ?? "")")
            #expect(answer?.body.contains(String(token(index).dropFirst(2))) == false, "a refusal repeats the body: \(answer?.body ?? "")")
        }
        let boundaries = try #require(await system.get("/v1/civic/boundaries"))
        #expect(boundaries.status == 200 && boundaries.header("ETag") != nil)
        #expect((json(boundaries.body)["features"] as? [Any])?.count == 10, "city, county, state, country, 6 sample districts")
        let outlines = await system.get("/v1/civic/boundaries", headers: ["If-None-Match": boundaries.header("ETag") ?? "-"])
        #expect(outlines?.status == 304 && outlines?.header("Cache-Control") == "public, max-age=60")
        let metrics = await system.gatewayMetrics()
        let statuses = await system.stopAll()
        #expect(statuses.allSatisfy { $0.1 == 0 }, "\(statuses)")
        // Everything the database holds, the events log included, as text.
        let dump = Process()
        dump.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        dump.arguments = ["pg_dump", "--data-only", system.databaseURL]
        let pipe = Pipe()
        dump.standardOutput = pipe
        dump.standardError = FileHandle.nullDevice
        try dump.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        dump.waitUntilExit()
        let database = String(decoding: data, as: UTF8.self)
        #expect(database.contains("civic.bills"), "the dump holds the civic tables")
        let logs = system.logs()
        #expect(logs.contains("lookup") || logs.contains("/v1/civic/lookup"), "the lookups were logged as requests")
        #expect(logs.contains("lat: a number from -90 to 90 is required"), "civic logged its refusals (by member)")
        for fragment in fragments {
            #expect(!database.contains(fragment), "a coordinate (\(fragment)) is in the database")
            #expect(!logs.contains(fragment), "a coordinate (\(fragment)) is in a log")
            #expect(!metrics.contains(fragment), "a coordinate (\(fragment)) is in /metrics")
        }
    }

    @Test("new-bill push end to end: subscriptions over HTTP, bills introduced in the feed and by a local file reach each device once through notify (a kill -9 of civic between), a refused token ends its subscription, tokens in no log")
    func newBillPush() async throws {
        let (standin, feedPort) = try await startStandin()
        defer {
            kill(standin.processIdentifier, SIGKILL)
            standin.waitUntilExit()
        }
        SecretLedger.note(Self.apiKey, as: "feed API key")
        let push = try await NotifyHTTPTests.Sink("deploy/push-sink/push_sink.py") { port, dir in
            ["--port", "\(port)", "--log", dir.appendingPathComponent("out/push.jsonl").path]
        }
        defer { push.stop() }
        let system = try SystemHarness(ownDatabase: true)
        defer { _ = system.stopBlocking() }
        let adminName = "civic-admin-\(UUID().uuidString.prefix(6))"
        let civicSettings = [
            "CIVIC_FEED_URL": "http://127.0.0.1:\(feedPort)", "CIVIC_FEED_API_KEY": Self.apiKey,
            "CIVIC_IMPORT_INTERVAL_S": "5", "CIVIC_PUSH_GATHER_S": "3", "EVENTS_POLL_MS": "200",
        ]
        try system.start("broker")
        try system.start("auth", extra: ["ADMIN_USERNAME": adminName, "ADMIN_PASSWORD": "Admin2026x"])
        try system.start(
            "notify",
            extra: [
                "FCM_ENDPOINT": "http://127.0.0.1:\(push.port)", "FCM_PROJECT_ID": "local",
                "FCM_ACCESS_TOKEN": "local-token", "DELIVERY_POLL_MS": "100", "SMTP_HOST": "none",
            ])
        var civic = try system.start("civic", extra: civicSettings)
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth,notify,civic"])
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(await system.get("/readyz")?.status == 200, "\(system.logs())")
        var meetings = 0
        while Date() < deadline, meetings < 34 {
            meetings = (json(await system.get("/v1/civic/meetings?limit=100")?.body)["items"] as? [Any])?.count ?? 0
            try await Task.sleep(for: .milliseconds(300))
        }
        let city = "ocd-jurisdiction/country:us/state:ca/place:san_luis_obispo/government"
        let county = "ocd-jurisdiction/country:us/state:ca/county:san_luis_obispo/government"

        // Subscriptions: no account; the same token replaces; the secret guards changes.
        let tokenA = "civic-a-\(UUID().uuidString)"
        let tokenB = "civic-b-\(UUID().uuidString)"
        func subscribe(_ token: String, _ jurisdiction: String) async -> HTTP.Response? {
            await system.send(
                "POST", "/v1/civic/subscriptions",
                json: #"{"deviceToken": "\#(token)", "platform": "android", "app": "politimap", "jurisdictions": ["\#(jurisdiction)"]}"#)
        }
        let first = try #require(await subscribe(tokenA, county))
        #expect(first.status == 201 && !first.body.contains(tokenA))
        let a = try #require(await subscribe(tokenA, city))
        #expect(a.status == 200 && json(a.body)["id"] as? String == json(first.body)["id"] as? String)
        let b = try #require(await subscribe(tokenB, county))
        #expect(b.status == 201)
        let idA = try #require(json(a.body)["id"] as? String)
        let idB = try #require(json(b.body)["id"] as? String)
        let secretB = try #require(json(b.body)["secret"] as? String)
        let oldSecretA = try #require(json(first.body)["secret"] as? String)
        SecretLedger.note(oldSecretA, as: "subscription secret")
        SecretLedger.note(try #require(json(a.body)["secret"] as? String), as: "subscription secret")
        SecretLedger.note(secretB, as: "subscription secret")
        let filter = #"{"jurisdictions": ["\#(county)"]}"#
        #expect(
            await system.send("PUT", "/v1/civic/subscriptions/\(idA)", json: filter, headers: ["X-Subscription-Secret": oldSecretA])?
                .status == 404)
        #expect(await system.send("PUT", "/v1/civic/subscriptions/\(idB)", json: filter)?.status == 400)
        let updated = await system.send(
            "PUT", "/v1/civic/subscriptions/\(idB)", json: filter, headers: ["X-Subscription-Secret": secretB])
        #expect(updated?.status == 200 && (json(updated?.body)["jurisdictions"] as? [String]) == [county])
        // The secret is a header: in the body it is refused, as is any member the update does not take.
        for body in [#"{"jurisdictions": ["\#(county)"], "X-Subscription-Secret": "x"}"#, #"{"jurisdictions": [], "colour": 1}"#] {
            let refused = await system.send(
                "PUT", "/v1/civic/subscriptions/\(idB)", json: body, headers: ["X-Subscription-Secret": secretB])
            #expect(refused?.status == 400)
        }
        let badPlatform = await system.send(
            "POST", "/v1/civic/subscriptions",
            json: #"{"deviceToken": "x-\#(UUID().uuidString)", "platform": "ios", "app": "politimap", "jurisdictions": ["somewhere"]}"#)
        #expect(badPlatform?.status == 400)
        let tokenC = "civic-c-\(UUID().uuidString)"
        let c = try #require(await subscribe(tokenC, city))
        let idC = try #require(json(c.body)["id"] as? String)
        let secretC = try #require(json(c.body)["secret"] as? String)
        SecretLedger.note(secretC, as: "subscription secret")
        #expect(
            await system.send("DELETE", "/v1/civic/subscriptions/\(idC)", headers: ["X-Subscription-Secret": secretC])?
                .status == 204)
        #expect(
            await system.send("DELETE", "/v1/civic/subscriptions/\(idC)", headers: ["X-Subscription-Secret": secretC])?
                .status == 404)

        // D's token is one the provider no longer knows (the sink answers UNREGISTERED): its first
        // push is refused, notify says so, and civic ends the subscription.
        let tokenD = "gone-civic-d-\(UUID().uuidString)"
        let d = try #require(await subscribe(tokenD, county))
        let idD = try #require(json(d.body)["id"] as? String)
        let secretD = try #require(json(d.body)["secret"] as? String)
        SecretLedger.note(secretD, as: "subscription secret")

        // Two new council bills and five new county bills in the feed: A gets two pushes, B one summary.
        for (jurisdiction, count) in [(city, 2), (county, 5)] {
            let body = #"{"jurisdiction": "\#(jurisdiction)", "count": \#(count)}"#
            _ = await offPool { HTTP.request(port: feedPort, method: "POST", path: "/_standin/introduce", body: body) }
        }
        func pushes() -> [[String: Any]] {
            (push.files(".jsonl").first ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        func pushed(_ token: String) -> [[String: Any]] { pushes().filter { $0["token"] as? String == token } }
        let wait = Date().addingTimeInterval(60)
        while Date() < wait, pushed(tokenA).count < 2 || pushed(tokenB).count < 1 {
            try await Task.sleep(for: .milliseconds(300))
        }
        #expect(pushed(tokenA).count == 2, "\(pushes())")
        #expect(pushed(tokenB).count == 1 && (pushed(tokenB).first?["title"] as? String) == "5 new bills", "\(pushes())")
        #expect(pushed(tokenA).allSatisfy { $0["title"] as? String == "New local bill" }, "\(pushes())")
        #expect(pushed(tokenC).isEmpty)
        var gone: HTTP.Response?
        let unsubscribed = Date().addingTimeInterval(30)
        repeat {
            gone = await system.send(
                "PUT", "/v1/civic/subscriptions/\(idD)", json: filter, headers: ["X-Subscription-Secret": secretD])
            if gone?.status == 404 { break }
            try await Task.sleep(for: .milliseconds(300))
        } while Date() < unsubscribed
        #expect(gone?.status == 404, "the subscription of a refused token ends: \(gone?.body ?? "")")

        // kill -9 civic and start it again: its import and consumer run again, nothing is pushed twice.
        kill(civic.processIdentifier, SIGKILL)
        civic.waitUntilExit()
        civic = try system.start("civic", extra: civicSettings)
        try await Task.sleep(for: .seconds(12))

        // A council item from a local file (an editor's): A gets a third single push.
        func token(_ name: String, _ password: String) async throws -> String {
            let login = await system.postPatiently(
                "/v1/auth/login", json: #"{"username": "\#(name)", "password": "\#(password)"}"#)
            return try #require(json(login?.body)["accessToken"] as? String)
        }
        let admin = ["Authorization": "Bearer \(try await token(adminName, "Admin2026x"))"]
        let file = """
            {"format": "politimap-local/1", "jurisdiction": {"id": "\(city)", "name": "San Luis Obispo"},
             "body": "San Luis Obispo City Council",
             "items": [{"id": "push-test-item", "session": "2026", "identifier": "Item 99",
                        "title": "A local item", "updatedAt": "2026-11-24T12:00:00Z"}]}
            """
        #expect(await system.send("POST", "/v1/admin/civic/imports", json: file)?.status == 401)
        let refused = await system.send(
            "POST", "/v1/admin/civic/imports", json: file.replacingOccurrences(of: "2026-11-24T12:00:00Z", with: "soon"),
            headers: admin)
        #expect(refused?.status == 400)
        #expect((json(refused?.body)["details"] as? [String: Any])?["field"] as? String == "items[0].updatedAt")
        let imported = await system.send("POST", "/v1/admin/civic/imports", json: file, headers: admin)
        #expect(imported?.status == 200 && json(imported?.body)["billsNew"] as? Int == 1, "\(imported?.body ?? "")")
        let again = await system.send("POST", "/v1/admin/civic/imports", json: file, headers: admin)
        #expect(json(again?.body)["billsNew"] as? Int == 0 && json(again?.body)["billsUnchanged"] as? Int == 1)
        let third = Date().addingTimeInterval(30)
        while Date() < third, pushed(tokenA).count < 3 { try await Task.sleep(for: .milliseconds(300)) }
        try await Task.sleep(for: .seconds(3))
        #expect(pushed(tokenA).count == 3, "\(pushes())")
        #expect(pushed(tokenB).count == 1, "\(pushes())")
        #expect((pushed(tokenA).last?["body"] as? String)?.contains("Item 99") == true, "\(pushes())")
        _ = await system.stopAll()
        let logs = system.logs()
        for secret in [tokenA, tokenB, tokenC, tokenD] { #expect(!logs.contains(secret), "a push token is in a log") }
        _ = civic
    }
}
