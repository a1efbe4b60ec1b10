import Foundation
import Glibc
import Testing

/// `loadgen` against the real system: the app scenarios must run clean against gateway, broker,
/// auth, orders, routing and hydration as processes, and report what they sent.
@Suite("loadgen against the running system", .serialized)
struct LoadgenSystemTests {
    @Test(
        "mixed: NavUP, Gifter (logins and gifts), PostcardBuddy, TapWater and PolitiMap traffic, sessions renewed on the way, every answer as expected (no 429 at the default limits), a JSON report"
    )
    func mixed() async throws {
        let system = try SystemHarness()
        try system.start("broker")
        try system.start("auth")
        try system.start("orders")
        try system.start("routing")
        try system.start("hydration")
        let (standin, feedPort) = try await CivicHTTPTests().startStandin()
        defer {
            kill(standin.processIdentifier, SIGKILL)
            standin.waitUntilExit()
        }
        try system.start(
            "civic",
            extra: ["CIVIC_FEED_URL": "http://127.0.0.1:\(feedPort)", "CIVIC_FEED_API_KEY": CivicHTTPTests.apiKey])
        try system.start("social", extra: ["EVENTS_POLL_MS": "200"])
        // The default rate limits (a setting given as "" takes its default), with loadgen's
        // address trusted as a proxy, as `make up` does: each simulated user has an address.
        let defaultLimits = Dictionary(
            uniqueKeysWithValues: ["LOGIN", "REGISTER", "RECOVERY", "SEARCH", "WRITE", "READ"].map {
                ("RATE_LIMIT_\($0)", "")
            })
        let gateway = ["READINESS_SERVICES": "auth,orders,routing,hydration,civic,social", "TRUSTED_PROXIES": "127.0.0.1"]
        try system.start("gateway", extra: defaultLimits.merging(gateway) { $1 })
        defer { _ = system.stopBlocking() }
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        try #require(await system.get("/readyz")?.status == 200, "\(system.logs())")
        // civic imports the stand-in's bills at start.
        while Date() < deadline, await system.get("/v1/civic/bills?level=federal&limit=1")?.body.contains("nextCursor") != true {
            try await Task.sleep(for: .milliseconds(200))
        }

        let report = system.logDirectory.appendingPathComponent("mixed.json")
        let (status, output) = try await system.runToEnd(
            "loadgen",
            arguments: [
                "mixed", "--url", "http://127.0.0.1:\(system.httpPort)", "--seconds", "4", "--users", "100",
                "--login-rate", "5", "--wrong-share", "0.4", "--postcard-rate", "1", "--accounts", "10",
                "--tapwater-users", "100", "--drink-every", "4", "--sync-every", "2", "--politimap-users", "100",
                "--open-every", "4", "--gift-rate", "2", "--next-class-every", "4", "--renew-every", "1",
                "--json", report.path,
            ])
        #expect(status == 0, "\(output)")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any]
        let requests = try #require(object?["requests"] as? [[String: Any]], "\(output)")
        var byName: [String: [String: Any]] = [:]
        for request in requests { byName[request["name"] as? String ?? ""] = request }
        for name in [
            "navup locate", "navup route", "gifter login, right password", "gifter login, wrong password",
            "postcard login", "postcard quote", "postcard order and pay", "tapwater log drink", "tapwater sync",
            "politimap highlights", "politimap bill list", "politimap bill detail",
            "gifter catalogue search", "gifter favourite", "gifter gift purchase", "gifter directory search",
            "gifter friend's wish list", "gifter friend request", "gifter friend accept", "gifter remove friend",
            // Sessions renewed with their refresh tokens every second (`--renew-every 1`), as a
            // run past the access token's 15 minutes does, and the requests after it still signed in.
            "navup next class", "navup token refresh", "tapwater token refresh",
        ] {
            let entry = try #require(byName[name], "no \(name) in \(output)")
            #expect((entry["count"] as? Int ?? 0) > 0, "\(name): \(entry)")
            #expect(entry["errors"] as? Int == 0, "\(name): \(entry)")
            #expect((entry["statuses"] as? [String: Int])?["429"] == nil, "\(name): \(entry)")
        }
        // Eight wrong guesses at one account: five 401s, then the hold answers 423.
        let wrong = byName["gifter login, wrong password"]?["statuses"] as? [String: Int] ?? [:]
        #expect((wrong["401"] ?? 0) >= 5, "\(wrong)")
        #expect((wrong["423"] ?? 0) > 0, "\(wrong)")
        #expect(output.contains("navup locate"))
    }

    @Test("--help lists the scenarios; a wrong option is refused by name")
    func usage() async throws {
        let system = try SystemHarness()
        let (status, help) = try await system.runToEnd("loadgen", arguments: ["--help"])
        #expect(status == 0)
        for scenario in ["navup", "gifter", "postcard", "tapwater", "politimap", "mixed", "broker", "login", "orders", "gifts"] {
            #expect(help.contains("  \(scenario) "), "\(scenario) missing from --help")
        }
        let (refused, message) = try await system.runToEnd("loadgen", arguments: ["navup", "--userz", "5"])
        #expect(refused != 0)
        #expect(message.contains("--userz"))
    }
}
