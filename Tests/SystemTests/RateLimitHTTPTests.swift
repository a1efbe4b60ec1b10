import Foundation
import Testing

/// The gateway's rate limits and auth's admission control, against real processes: credential
/// stuffing cut to the documented rate, X-Forwarded-For believed only from trusted proxies,
/// accounts limited wherever they come from, and a full hashing queue answered at once.
@Suite("rate limits over HTTP (real processes)", .serialized)
struct RateLimitHTTPTests {
    let orders = OrdersHTTPTests()

    /// Broker, auth and the gateway with `gateway` settings (a setting given as "" takes its
    /// default) and `auth` settings.
    func start(gateway: [String: String], auth: [String: String] = [:]) async throws -> SystemHarness {
        let system = try SystemHarness()
        try system.start("broker")
        try system.start("auth", extra: auth)
        try system.start("gateway", extra: gateway.merging(["READINESS_SERVICES": "auth"]) { $1 })
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        try #require(await system.get("/readyz")?.status == 200, "\(system.logs())")
        return system
    }

    func login(_ system: SystemHarness, _ username: String, from address: String? = nil) async -> HTTP.Response {
        let headers = address.map { ["X-Forwarded-For": $0] } ?? [:]
        return await system.send(
            "POST", "/v1/auth/login", json: #"{"username": "\#(username)", "password": "Guess2026x"}"#,
            headers: headers) ?? HTTP.Response(status: 0, head: "", body: "no answer")
    }

    /// The value of a counter line of `/metrics` (0 when absent).
    func metric(_ system: SystemHarness, _ name: String, _ labels: [String]) async -> Double {
        let text = await system.gatewayMetrics()
        let line = text.split(separator: "\n").first { line in
            line.hasPrefix(name + "{") && labels.allSatisfy { line.contains($0) }
        }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }

    @Test(
        "credential stuffing from one address: the default login limit lets the burst through, then answers 429 with Retry-After"
    )
    func credentialStuffing() async throws {
        let system = try await start(gateway: ["RATE_LIMIT_LOGIN": ""])  // the default, 30/min,burst=10
        defer { _ = system.stopBlocking() }
        var statuses: [Int] = []
        for index in 0..<30 {
            let response = await login(system, "victim-\(index)@example.org")
            statuses.append(response.status)
            if response.status == 429 {
                #expect(Int(response.header("Retry-After") ?? "") ?? 0 >= 1, "\(response.head)")
                #expect(orders.json(response.body)["code"] as? String == "rate_limited")
                let details = orders.json(response.body)["details"] as? [String: Any]
                #expect(details?["routeClass"] as? String == "login")
            }
        }
        #expect(statuses.prefix(10).allSatisfy { $0 == 401 }, "\(statuses)")
        let refused = statuses.filter { $0 == 429 }.count
        // At 30/min one more token comes back every 2 s while the 30 run.
        #expect(refused >= 15, "\(statuses)")
        #expect(statuses.allSatisfy { $0 == 401 || $0 == 429 }, "\(statuses)")
        let counted = await metric(
            system, "backplane_gateway_rate_limited_total", [#"class="login""#, #"key="address""#])
        #expect(Int(counted) == refused)
        // The probes are never limited.
        for _ in 0..<30 { #expect(await system.get("/healthz")?.status == 200) }
    }

    @Test(
        "X-Forwarded-For: believed from a trusted proxy, right-most untrusted address first; spoofed prefixes change nothing"
    )
    func forwardedFor() async throws {
        let system = try await start(gateway: ["RATE_LIMIT_LOGIN": "2/min,burst=2", "TRUSTED_PROXIES": "127.0.0.1"])
        defer { _ = system.stopBlocking() }
        #expect(await login(system, "a@example.org", from: "198.51.100.1").status == 401)
        #expect(await login(system, "b@example.org", from: "198.51.100.1").status == 401)
        #expect(await login(system, "c@example.org", from: "198.51.100.1").status == 429)
        #expect(await login(system, "d@example.org", from: "198.51.100.2").status == 401, "another client")
        // The client made up "198.51.100.3"; the proxy appended the address it really came from.
        #expect(await login(system, "e@example.org", from: "198.51.100.3, 198.51.100.1").status == 429)
        // Without the header, the proxy itself (loopback) is the client.
        #expect(await login(system, "f@example.org").status == 401)
    }

    @Test("without trusted proxies, X-Forwarded-For is ignored: rotating it does not escape the limit")
    func untrustedForwardedFor() async throws {
        let system = try await start(gateway: ["RATE_LIMIT_LOGIN": "2/min,burst=2", "TRUSTED_PROXIES": ""])
        defer { _ = system.stopBlocking() }
        let statuses = await (0..<5).asyncMap { index in
            await login(system, "x\(index)@example.org", from: "198.51.100.\(index)").status
        }
        #expect(statuses == [401, 401, 429, 429, 429])
    }

    @Test("an account is limited wherever its requests come from")
    func perAccount() async throws {
        let system = try await start(gateway: ["RATE_LIMIT_READ": "3/min,burst=3", "TRUSTED_PROXIES": "127.0.0.1"])
        defer { _ = system.stopBlocking() }
        let (ann, _) = try await orders.signUp(system, "ann")
        let statuses = await (0..<5).asyncMap { index in
            await ann.send("GET", "/v1/me", headers: ["X-Forwarded-For": "203.0.113.\(index)"]).status
        }
        #expect(statuses == [200, 200, 200, 429, 429])
        let counted = await metric(
            system, "backplane_gateway_rate_limited_total", [#"class="read""#, #"key="account""#])
        #expect(counted == 2)
    }

    @Test("a full hashing queue answers 503 with Retry-After at once instead of making logins wait")
    func hashingAdmission() async throws {
        let system = try await start(
            gateway: [:], auth: ["HASHING_THREADS": "1", "HASHING_QUEUE_LIMIT": "0", "WORKER_CONCURRENCY": "32"])
        defer { _ = system.stopBlocking() }
        // Names of this run's own: the login holds of unknown names persist in a reused database.
        let run = UUID().uuidString.prefix(8).lowercased()
        let responses = await withTaskGroup(of: HTTP.Response.self) { group in
            for index in 0..<24 {
                group.addTask { await login(system, "nobody-\(index)-\(run)@example.org") }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let busy = responses.filter { $0.status == 503 }
        #expect(!busy.isEmpty, "\(responses.map(\.status))")
        #expect(responses.allSatisfy { $0.status == 401 || $0.status == 503 }, "\(responses.map(\.status))")
        for response in busy {
            #expect(Int(response.header("Retry-After") ?? "") ?? 0 >= 1, "\(response.head)")
            #expect(orders.json(response.body)["code"] as? String == "unavailable")
        }
    }
}

extension Sequence where Element: Sendable {
    /// `map` with an async transform, one element after the other.
    func asyncMap<T>(_ transform: (Element) async -> T) async -> [T] {
        var results: [T] = []
        for element in self { results.append(await transform(element)) }
        return results
    }
}
