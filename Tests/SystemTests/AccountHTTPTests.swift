import AuthContract
import Contract
import Foundation
import Logging
import PostgresNIO
import Store
import Testing

/// Profile, password, devices, roles and recovery through HTTP, with real processes.
@Suite("auth accounts over HTTP (real processes)", .serialized)
struct AccountHTTPTests {
    let auth = AuthHTTPTests()

    func json(_ body: String?) -> [String: Any] {
        guard let body, let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
            return [:]
        }
        return object
    }

    /// Registers and signs in; the username and the session's fields.
    func signedIn(_ system: SystemHarness, _ prefix: String, password: String = "Lund2026x") async throws -> (
        name: String, access: String, refresh: String
    ) {
        let name = "\(prefix)-\(UUID().uuidString.prefix(8))@example.org".lowercased()
        let created = await system.postPatiently(
            "/v1/auth/register", json: #"{"username": "\#(name)", "password": "\#(password)"}"#)
        #expect(created?.status == 201)
        let login = try #require(
            await system.postPatiently(
                "/v1/auth/login", json: #"{"username": "\#(name)", "password": "\#(password)"}"#))
        #expect(login.status == 200)
        let body = json(login.body)
        return (name, try #require(body["accessToken"] as? String), try #require(body["refreshToken"] as? String))
    }

    @Test("GET/PATCH/DELETE /v1/me and POST /v1/me/password")
    func profileAndPassword() async throws {
        let system = try await auth.startAuth()
        defer { _ = system.stopBlocking() }
        let (name, access, refresh) = try await signedIn(system, "me")
        let bearer = ["Authorization": "Bearer \(access)"]

        let patched = await system.send(
            "PATCH", "/v1/me", json: #"{"phone": "+46701234567", "displayName": "Ann"}"#, headers: bearer)
        #expect(patched?.status == 200)
        #expect(json(patched?.body)["phone"] as? String == "+46701234567")
        #expect(json(patched?.body)["email"] as? String == name)
        let badPhone = await system.send("PATCH", "/v1/me", json: #"{"phone": "12345"}"#, headers: bearer)
        #expect(badPhone?.status == 400)
        #expect(badPhone?.body.contains("phone") == true)
        #expect(await system.send("PATCH", "/v1/me", json: #"{"phone": "+46701234567"}"#)?.status == 401)

        let wrong = await system.post("/v1/me/password", json: "{}")
        #expect(wrong?.status == 401 || wrong?.status == 400)
        let wrongCurrent = await system.send(
            "POST", "/v1/me/password", json: #"{"currentPassword": "Nope2026x", "newPassword": "Malmo2027y"}"#,
            headers: bearer)
        #expect(wrongCurrent?.status == 401)
        let weak = await system.send(
            "POST", "/v1/me/password", json: #"{"currentPassword": "Lund2026x", "newPassword": "malmo"}"#,
            headers: bearer)
        #expect(weak?.status == 400)
        let changed = await system.send(
            "POST", "/v1/me/password", json: #"{"currentPassword": "Lund2026x", "newPassword": "Malmo2027y"}"#,
            headers: bearer)
        #expect(changed?.status == 200)
        #expect(json(changed?.body)["refreshToken"] is String, "a new session")
        #expect(
            await system.post("/v1/auth/refresh", json: #"{"refreshToken": "\#(refresh)"}"#)?.status == 401,
            "earlier sessions are signed out")
        #expect(
            await system.post("/v1/auth/login", json: #"{"username": "\#(name)", "password": "Malmo2027y"}"#)?.status
                == 200)

        #expect(await system.send("DELETE", "/v1/me")?.status == 401)
        #expect(await system.send("DELETE", "/v1/me", headers: bearer)?.status == 204)
        #expect(
            await system.post("/v1/auth/login", json: #"{"username": "\#(name)", "password": "Malmo2027y"}"#)?.status
                == 401, "the account is gone")
        #expect(await system.get("/v1/me", headers: bearer)?.status == 404)
    }

    @Test("POST/GET /v1/me/devices and DELETE /v1/me/devices/{id}")
    func devices() async throws {
        let system = try await auth.startAuth()
        defer { _ = system.stopBlocking() }
        let (_, access, _) = try await signedIn(system, "dev")
        let bearer = ["Authorization": "Bearer \(access)"]
        let token = "apns-\(UUID().uuidString)"
        let body = #"{"token": "\#(token)", "platform": "ios", "osVersion": "17.4", "app": "tapwater"}"#

        let created = await system.send("POST", "/v1/me/devices", json: body, headers: bearer)
        #expect(created?.status == 201)
        let id = try #require(json(created?.body)["deviceId"] as? String)
        #expect(json(created?.body)["apnsEnvironment"] as? String == "production", "the default")
        let sandboxToken = "apns-dev-\(UUID().uuidString)"
        let sandboxBody = #"{"token":"\#(sandboxToken)","platform":"ios","osVersion":"18","apnsEnvironment":"sandbox"}"#
        let sandbox = await system.send("POST", "/v1/me/devices", json: sandboxBody, headers: bearer)
        #expect(sandbox?.status == 201)
        #expect(json(sandbox?.body)["apnsEnvironment"] as? String == "sandbox")
        let staging = await system.send(
            "POST", "/v1/me/devices",
            json: #"{"token": "x", "platform": "ios", "osVersion": "1", "apnsEnvironment": "staging"}"#, headers: bearer
        )
        #expect(staging?.status == 400, "only sandbox or production")
        let again = await system.send("POST", "/v1/me/devices", json: body, headers: bearer)
        #expect(again?.status == 200, "a known token is updated")
        #expect(json(again?.body)["deviceId"] as? String == id)
        let bad = await system.send(
            "POST", "/v1/me/devices", json: #"{"token": "x", "platform": "palm", "osVersion": "1"}"#, headers: bearer)
        #expect(bad?.status == 400)
        #expect(await system.send("POST", "/v1/me/devices", json: body)?.status == 401)

        let listed = await system.get("/v1/me/devices", headers: bearer)
        #expect(listed?.status == 200)
        #expect(listed?.body.contains(token) == true)
        let environments = (json(listed?.body)["items"] as? [[String: Any]] ?? []).map {
            "\($0["token"] ?? "")=\($0["apnsEnvironment"] ?? "")"
        }
        #expect(Set(environments) == ["\(token)=production", "\(sandboxToken)=sandbox"])
        // A page at a time, oldest first: the cursor of the first page leads to the second.
        let firstPage = await system.get("/v1/me/devices?limit=1", headers: bearer)
        let firstItems = json(firstPage?.body)["items"] as? [[String: Any]] ?? []
        #expect(firstItems.map { $0["token"] as? String } == [token], "\(firstPage?.body ?? "")")
        let cursor = try #require(json(firstPage?.body)["nextCursor"] as? String)
        let secondPage = await system.get("/v1/me/devices?limit=1&cursor=\(cursor)", headers: bearer)
        let secondItems = json(secondPage?.body)["items"] as? [[String: Any]] ?? []
        #expect(secondItems.map { $0["token"] as? String } == [sandboxToken])
        #expect(json(secondPage?.body)["nextCursor"] == nil, "the last page has no cursor")
        #expect(await system.get("/v1/me/devices?cursor=nonsense", headers: bearer)?.status == 400)
        #expect(await system.get("/v1/me/devices?limit=0", headers: bearer)?.status == 400)
        #expect(await system.send("DELETE", "/v1/me/devices/\(id)", headers: bearer)?.status == 204)
        #expect(await system.send("DELETE", "/v1/me/devices/\(id)", headers: bearer)?.status == 404)
        #expect(await system.get("/v1/me/devices", headers: bearer)?.body.contains(token) == false)
    }

    @Test("a secret given as NAME_FILE is read from the file; both forms, or a file that cannot be read, stop the process naming the setting and never the secret")
    func secretFromFile() async throws {
        let adminName = "root-\(UUID().uuidString.prefix(8))".lowercased()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("admin-password-\(UUID())")
        // As `echo secret > file` writes it: the line break is not part of the password.
        try Data("Admin2026file\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let system = try await auth.startAuth(["ADMIN_USERNAME": adminName, "ADMIN_PASSWORD_FILE": file.path])
        defer { _ = system.stopBlocking() }
        let login = await system.post(
            "/v1/auth/login", json: #"{"username": "\#(adminName)", "password": "Admin2026file"}"#)
        #expect(login?.status == 200, "\(system.logs())")
        #expect(!system.logs().contains("Admin2026file"))

        let (both, bothOutput) = try await system.runToEnd(
            "auth", arguments: [], extra: ["ADMIN_PASSWORD": "Other2026x", "ADMIN_PASSWORD_FILE": file.path])
        #expect(both == 78 && bothOutput.contains("ADMIN_PASSWORD or ADMIN_PASSWORD_FILE, not both"), "\(bothOutput)")
        #expect(!bothOutput.contains("Other2026x") && !bothOutput.contains("Admin2026file"), "\(bothOutput)")
        let missing = "/nonexistent/admin-password-\(UUID())"
        let (status, output) = try await system.runToEnd(
            "auth", arguments: [], extra: ["ADMIN_PASSWORD_FILE": missing])
        #expect(status == 78 && output.contains("ADMIN_PASSWORD_FILE=\(missing) is not valid"), "\(output)")
    }

    @Test("ADMIN_USERNAME makes an admin at start; only an admin grants roles; the next token carries them")
    func roles() async throws {
        let adminName = "root-\(UUID().uuidString.prefix(8))".lowercased()
        let system = try await auth.startAuth(["ADMIN_USERNAME": adminName, "ADMIN_PASSWORD": "Admin2026x"])
        defer { _ = system.stopBlocking() }
        let adminLogin = await system.post(
            "/v1/auth/login", json: #"{"username": "\#(adminName)", "password": "Admin2026x"}"#)
        #expect(adminLogin?.status == 200, "\(system.logs())")
        let admin = ["Authorization": "Bearer \(json(adminLogin?.body)["accessToken"] as? String ?? "")"]
        #expect((json(await system.get("/v1/me", headers: admin)?.body)["roles"] as? [String]) == ["user", "admin"])

        let (_, access, refresh) = try await signedIn(system, "printer")
        let user = ["Authorization": "Bearer \(access)"]
        let userId = try #require(json(await system.get("/v1/me", headers: user)?.body)["userId"] as? String)
        let path = "/v1/admin/users/\(userId)/roles"
        #expect(await system.send("POST", path, json: #"{"grant": ["printer"]}"#, headers: user)?.status == 403)
        #expect(await system.send("POST", path, json: #"{"grant": ["printer"]}"#)?.status == 401)
        #expect(await system.send("POST", path, json: #"{"grant": ["wizard"]}"#, headers: admin)?.status == 400)
        let granted = await system.send("POST", path, json: #"{"grant": ["printer"]}"#, headers: admin)
        #expect(granted?.status == 200)
        #expect(json(granted?.body)["roles"] as? [String] == ["user", "printer"])
        #expect(
            await system.send(
                "POST", "/v1/admin/users/\(UUID())/roles", json: #"{"grant": ["printer"]}"#, headers: admin)?
                .status == 404)

        let refreshed = await system.post("/v1/auth/refresh", json: #"{"refreshToken": "\#(refresh)"}"#)
        let next = ["Authorization": "Bearer \(json(refreshed?.body)["accessToken"] as? String ?? "")"]
        #expect((json(await system.get("/v1/me", headers: next)?.body)["roles"] as? [String]) == ["user", "printer"])
    }

    /// The reset token of the newest `auth.password_reset_requested` event for `email`, read from
    /// the event log the way notify reads it.
    func resetToken(for email: String) async throws -> String? {
        var configuration = try DatabaseSettings(url: SystemHarness.databaseURL).clientConfiguration()
        configuration.options.maximumConnections = 2
        let client = PostgresClient(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let log = EventLog(client: client, logger: Logger(label: "test"))
            for _ in 0..<50 {
                var cursor = EventCursor.start
                var token: String?
                while true {
                    let page = try await log.fetch(
                        after: cursor, topics: [Auth.PasswordResetRequested.topic], limit: 500)
                    for event in page {
                        let mail = try Wire.makeDecoder().decode(Auth.PasswordResetRequested.self, from: event.payload)
                        if mail.email == email { token = mail.token }
                    }
                    guard let last = page.last else { break }
                    cursor = last.cursor
                }
                if let token { return token }
                try await Task.sleep(for: .milliseconds(100))
            }
            return nil
        }
    }

    @Test("password reset and username reminder: the same 202 whether or not the account exists; confirm lifts a hold")
    func recovery() async throws {
        let system = try await auth.startAuth()
        defer { _ = system.stopBlocking() }
        let (name, _, refresh) = try await signedIn(system, "reset")
        for _ in 0..<5 {
            _ = await system.post("/v1/auth/login", json: #"{"username": "\#(name)", "password": "Wrong2026x"}"#)
        }
        #expect(
            await system.post("/v1/auth/login", json: #"{"username": "\#(name)", "password": "Lund2026x"}"#)?.status
                == 423)

        let known = await system.post("/v1/auth/password-reset", json: #"{"username": "\#(name)"}"#)
        let unknown = await system.post(
            "/v1/auth/password-reset", json: #"{"username": "nobody-\#(UUID().uuidString.prefix(8))"}"#)
        let byEmail = await system.post(
            "/v1/auth/password-reset", json: #"{"email": "nobody-\#(UUID().uuidString.prefix(8))@example.org"}"#)
        #expect(known?.status == 202)
        #expect(unknown?.status == 202)
        #expect(byEmail?.status == 202)
        #expect(known?.body == unknown?.body && unknown?.body == byEmail?.body, "the answer reveals nothing")

        let token = try #require(try await resetToken(for: name), "\(system.logs())")
        let weak = await system.post(
            "/v1/auth/password-reset/confirm", json: #"{"token": "\#(token)", "newPassword": "weak"}"#)
        #expect(weak?.status == 400)
        let bogus = await system.post(
            "/v1/auth/password-reset/confirm", json: #"{"token": "bogus", "newPassword": "Malmo2027y"}"#)
        #expect(bogus?.status == 400)
        let confirmed = await system.post(
            "/v1/auth/password-reset/confirm", json: #"{"token": "\#(token)", "newPassword": "Malmo2027y"}"#)
        #expect(confirmed?.status == 204)
        #expect(
            await system.post(
                "/v1/auth/password-reset/confirm", json: #"{"token": "\#(token)", "newPassword": "Malmo2028z"}"#)?
                .status == 400, "single use")
        #expect(
            await system.post("/v1/auth/login", json: #"{"username": "\#(name)", "password": "Malmo2027y"}"#)?.status
                == 200, "the hold is lifted")
        #expect(
            await system.post("/v1/auth/refresh", json: #"{"refreshToken": "\#(refresh)"}"#)?.status == 401,
            "every earlier session is signed out")

        let reminder = await system.post("/v1/auth/username-reminder", json: #"{"email": "\#(name)"}"#)
        let noReminder = await system.post(
            "/v1/auth/username-reminder", json: #"{"email": "nobody-\#(UUID().uuidString.prefix(8))@example.org"}"#)
        #expect(reminder?.status == 202)
        #expect(reminder?.body == noReminder?.body)
        #expect(await system.post("/v1/auth/username-reminder", json: #"{"email": "nope"}"#)?.status == 400)
    }
}
