import Crypto
import Foundation
import Testing

/// Accounts through HTTP: gateway, broker and the auth service as real processes.
@Suite("auth over HTTP (real processes)", .serialized)
struct AuthHTTPTests {
    /// Broker, auth and gateway as processes, ready (or the test fails with their logs).
    func startAuth(_ extra: [String: String] = [:]) async throws -> SystemHarness {
        let system = try SystemHarness()
        try system.start("broker")
        try system.start("auth", extra: extra)
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth"])
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(await system.get("/readyz")?.status == 200, "\(system.logs())")
        return system
    }

    @Test("POST /v1/auth/register: 201 with an id, 409 for a taken name, 400 naming every broken rule")
    func register() async throws {
        let system = try await startAuth()
        defer { _ = system.stopBlocking() }

        let name = "ann-\(UUID().uuidString.prefix(8))@example.org"
        let created = await system.post(
            "/v1/auth/register", json: #"{"username": "\#(name)", "password": "Lund2026x"}"#)
        #expect(created?.status == 201)
        #expect(created?.body.contains("userId") == true)

        let taken = await system.post(
            "/v1/auth/register", json: #"{"username": " \#(name.uppercased())", "password": "Lund2026x"}"#)
        #expect(taken?.status == 409)
        #expect(taken?.body.contains("already_exists") == true)

        let weak = await system.post("/v1/auth/register", json: #"{"username": "x\#(name)", "password": "abc"}"#)
        #expect(weak?.status == 400)
        for rule in ["too_short", "missing_digit", "missing_capital"] { #expect(weak?.body.contains(rule) == true) }

        let malformed = await system.post("/v1/auth/register", json: #"{"username": 42}"#)
        #expect(malformed?.status == 400)
        #expect(malformed?.body.contains("invalid_argument") == true)
    }

    func token(_ field: String, in body: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
            return nil
        }
        return object[field] as? String
    }

    @Test("login, refresh, logout and the JWKS over HTTP; five wrong passwords give 423 with Retry-After")
    func sessions() async throws {
        let system = try await startAuth()
        defer { _ = system.stopBlocking() }

        let name = "bo-\(UUID().uuidString.prefix(8))@example.org"
        #expect(
            await system.post("/v1/auth/register", json: #"{"username": "\#(name)", "password": "Lund2026x"}"#)?.status
                == 201
        )
        let login = try #require(
            await system.post("/v1/auth/login", json: #"{"username": "\#(name)", "password": "Lund2026x"}"#))
        #expect(login.status == 200)
        let refreshToken = try #require(token("refreshToken", in: login.body))
        #expect(token("accessToken", in: login.body)?.split(separator: ".").count == 3)

        let access = try #require(token("accessToken", in: login.body))
        let me = await system.get("/v1/me", headers: ["Authorization": "Bearer \(access)"])
        #expect(me?.status == 200, "the gateway verifies the token itself with auth's JWKS")
        #expect(me?.body.contains(name.lowercased()) == true, "usernames are stored lower case")
        #expect(await system.get("/v1/me")?.status == 401, "no token")
        let metrics = await system.gatewayMetrics()
        #expect(
            metrics.contains(#"backplane_gateway_token_verification_seconds_bucket{outcome="valid",le="0.001"}"#),
            "verification time is measured")
        #expect(await system.get("/metrics")?.status == 404, "metrics are on the admin port only")
        #expect(await system.get("/v1/me", headers: ["Authorization": "Bearer nonsense.token.here"])?.status == 401)

        let refreshed = await system.post("/v1/auth/refresh", json: #"{"refreshToken": "\#(refreshToken)"}"#)
        #expect(refreshed?.status == 200)
        let reused = await system.post("/v1/auth/refresh", json: #"{"refreshToken": "\#(refreshToken)"}"#)
        #expect(reused?.status == 401, "a spent refresh token")
        let next = try #require(refreshed.flatMap { token("refreshToken", in: $0.body) })
        #expect(await system.post("/v1/auth/logout", json: #"{"refreshToken": "\#(next)"}"#)?.status == 204)

        let jwks = await system.get("/.well-known/jwks.json")
        #expect(jwks?.status == 200)
        #expect(jwks?.body.contains("Ed25519") == true)

        for _ in 0..<5 {
            #expect(
                await system.post("/v1/auth/login", json: #"{"username": "\#(name)", "password": "Wrong2026x"}"#)?
                    .status
                    == 401)
        }
        let held = await system.post("/v1/auth/login", json: #"{"username": "\#(name)", "password": "Lund2026x"}"#)
        #expect(held?.status == 423)
        #expect(held?.header("Retry-After") == "1200")
    }

    @Test(
        "over HTTP an unknown name locks like a known one, 40 parallel wrong logins check at most 5, forged tokens fail"
    )
    func lockoutAndForgery() async throws {
        let system = try await startAuth()
        defer { _ = system.stopBlocking() }

        let ghost = "ghost-\(UUID().uuidString.prefix(8))@example.org"
        for _ in 0..<5 {
            #expect(
                await system.post("/v1/auth/login", json: #"{"username": "\#(ghost)", "password": "Wrong2026x"}"#)?
                    .status == 401)
        }
        let ghostHeld = await system.post(
            "/v1/auth/login", json: #"{"username": "\#(ghost)", "password": "Wrong2026x"}"#)
        #expect(ghostHeld?.status == 423, "no account, yet the same hold: the lockout reveals nothing")
        #expect(ghostHeld?.header("Retry-After") == "1200")

        let name = "storm-\(UUID().uuidString.prefix(8))@example.org"
        #expect(
            await system.post("/v1/auth/register", json: #"{"username": "\#(name)", "password": "Lund2026x"}"#)?.status
                == 201)
        let statuses = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    await system.post("/v1/auth/login", json: #"{"username": "\#(name)", "password": "Wrong2026x"}"#)?
                        .status ?? 0
                }
            }
            var all: [Int] = []
            for await status in group { all.append(status) }
            return all
        }
        #expect(statuses.filter { $0 == 401 }.count <= 5, "at most 5 passwords checked: \(statuses)")
        #expect(statuses.filter { $0 == 401 }.count + statuses.filter { $0 == 423 }.count == 40, "\(statuses)")

        // Forged access tokens: alg none, and a valid-looking EdDSA token signed with another key.
        let jwks = try #require(await system.get("/.well-known/jwks.json"))
        let kid = try #require(jwks.body.firstMatch(of: /"kid"\s*:\s*"([^"]+)"/)?.1)
        let now = Int(Date().timeIntervalSince1970)
        let claims =
            #"{"sub":"\#(UUID().uuidString.lowercased())","roles":["user","admin"],"iat":\#(now),"exp":\#(now + 600),"iss":"backplane"}"#
        let none = Self.base64URL(#"{"alg":"none","typ":"JWT"}"#) + "." + Self.base64URL(claims) + "."
        let signingInput =
            Self.base64URL(#"{"alg":"EdDSA","typ":"JWT","kid":"\#(kid)"}"#) + "." + Self.base64URL(claims)
        let foreignKey = Curve25519.Signing.PrivateKey()
        let foreign = signingInput + "." + Self.base64URL(try foreignKey.signature(for: Data(signingInput.utf8)))
        for forged in [none, foreign] {
            let answer = await system.get("/v1/me", headers: ["Authorization": "Bearer \(forged)"])
            #expect(answer?.status == 401, "\(forged)")
        }
    }

    static func base64URL(_ text: String) -> String { base64URL(Data(text.utf8)) }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
