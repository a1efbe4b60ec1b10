import Foundation
import Testing

/// Accounts through HTTP: gateway, broker and the auth service as real processes.
@Suite("auth over HTTP (real processes)", .serialized)
struct AuthHTTPTests {
    @Test("POST /v1/auth/register: 201 with an id, 409 for a taken name, 400 naming every broken rule")
    func register() async throws {
        let system = try SystemHarness()
        try system.start("broker")
        try system.start("auth")
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth"])
        defer { _ = system.stopAll() }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, system.get("/readyz")?.status != 200 { try await Task.sleep(for: .milliseconds(200)) }
        #expect(system.get("/readyz")?.status == 200, "\(system.logs())")

        let name = "ann-\(UUID().uuidString.prefix(8))@example.org"
        let created = system.post("/v1/auth/register", json: #"{"username": "\#(name)", "password": "Lund2026x"}"#)
        #expect(created?.status == 201)
        #expect(created?.body.contains("userId") == true)

        let taken = system.post(
            "/v1/auth/register", json: #"{"username": " \#(name.uppercased())", "password": "Lund2026x"}"#)
        #expect(taken?.status == 409)
        #expect(taken?.body.contains("already_exists") == true)

        let weak = system.post("/v1/auth/register", json: #"{"username": "x\#(name)", "password": "abc"}"#)
        #expect(weak?.status == 400)
        for rule in ["too_short", "missing_digit", "missing_capital"] { #expect(weak?.body.contains(rule) == true) }

        let malformed = system.post("/v1/auth/register", json: #"{"username": 42}"#)
        #expect(malformed?.status == 400)
        #expect(malformed?.body.contains("invalid_argument") == true)
    }
}
