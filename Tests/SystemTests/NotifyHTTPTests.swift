import AuthContract
import Contract
import Foundation
import Glibc
import Logging
import OrdersContract
import PostgresNIO
import Store
import Testing

/// notify through HTTP, with real processes: a reset mail in a real SMTP server (aiosmtpd), an
/// order failure as an inbox item and a push to a local provider, preferences, schedules and
/// the live stream.
@Suite("notify over HTTP (real processes)", .serialized)
struct NotifyHTTPTests {
    let accounts = AccountHTTPTests()

    static var repoRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// A Python helper from deploy/ (SMTP or push sink) on a free port, logging under `directory`.
    final class Sink: @unchecked Sendable {
        // Set once in init; only read afterwards.
        let process = Process()
        let port: Int
        let directory: URL

        init(_ script: String, arguments: (Int, URL) -> [String]) async throws {
            port = try SystemHarness.freePort()
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "notify-sink-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let log = directory.appendingPathComponent("sink.log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments =
                ["python3", NotifyHTTPTests.repoRoot.appendingPathComponent(script).path]
                + arguments(port, directory)
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            for _ in 0..<100 {
                if (try? String(contentsOf: log, encoding: .utf8))?.contains("ready") == true { return }
                try await Task.sleep(for: .milliseconds(100))
            }
            throw POSIXError(.ETIMEDOUT)
        }

        /// Every file's content under the sink's directory with the given suffix.
        func files(_ suffix: String) -> [String] {
            let dir = directory.appendingPathComponent("out")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            return names.filter { $0.hasSuffix(suffix) }.compactMap {
                try? String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8)
            }
        }

        func stop() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    struct System {
        let harness: SystemHarness
        let smtp: Sink
        let push: Sink
        func stop() {
            _ = harness.stopBlocking()
            smtp.stop()
            push.stop()
        }
    }

    func start(replicas: Int = 1, extra: [String: String] = [:]) async throws -> System {
        let smtp = try await Sink("deploy/smtp-sink/smtp_sink.py") { port, dir in
            ["--port", "\(port)", "--dir", dir.appendingPathComponent("out").path]
        }
        let push = try await Sink("deploy/push-sink/push_sink.py") { port, dir in
            ["--port", "\(port)", "--log", dir.appendingPathComponent("out/push.jsonl").path]
        }
        let system = try SystemHarness()
        try system.start("broker")
        try system.start("auth", extra: ["EVENTS_POLL_MS": "200"])
        for _ in 0..<replicas {
            try system.start(
                "notify",
                extra: [
                    "SMTP_PORT": "\(smtp.port)", "SMTP_STARTTLS": "off", "EVENTS_POLL_MS": "200",
                    "FCM_ENDPOINT": "http://127.0.0.1:\(push.port)", "FCM_PROJECT_ID": "local",
                    "FCM_ACCESS_TOKEN": "local-token", "DELIVERY_POLL_MS": "100", "SCHEDULER_POLL_MS": "100",
                ].merging(extra) { _, new in new })
        }
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth,notify"])
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(await system.get("/readyz")?.status == 200, "\(system.logs())")
        return System(harness: system, smtp: smtp, push: push)
    }

    func eventually(_ seconds: Double = 20, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// Appends an event to the log as a producing service would (the notify consumer polls).
    func publish<Payload: Encodable & Sendable>(_ topic: String, _ payload: Payload) async throws {
        try await publish(topic, [payload])
    }

    /// Appends events in one transaction.
    func publish<Payload: Encodable & Sendable>(_ topic: String, _ payloads: [Payload]) async throws {
        var configuration = try DatabaseSettings(url: SystemHarness.databaseURL).clientConfiguration()
        configuration.options.maximumConnections = 1
        let client = PostgresClient(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let log = EventLog(client: client, logger: Logger(label: "test"))
            let events = try payloads.map { try Wire.makeEncoder().encode($0) }
            try await client.withTransaction(logger: Logger(label: "test")) { connection in
                for data in events {
                    _ = try await log.append(
                        NewEvent(topic: topic, producer: "orders", payload: data, createdAt: Date()), on: connection)
                }
            }
        }
    }

    @Test("POST /v1/auth/password-reset ends as a mail with the token in the SMTP server")
    func resetMail() async throws {
        let system = try await start()
        defer { system.stop() }
        let (name, _, _) = try await accounts.signedIn(system.harness, "mail")
        let accepted = await system.harness.post("/v1/auth/password-reset", json: #"{"email": "\#(name)"}"#)
        #expect(accepted?.status == 202)
        let token = try #require(try await accounts.resetToken(for: name))
        var mail: String?
        let arrived = try await eventually {
            mail = system.smtp.files(".eml").first { $0.contains("X-Envelope-To: \(name)") }
            return mail != nil
        }
        #expect(arrived, "no mail to \(name): \(system.harness.logs())")
        let text = try #require(mail)
        #expect(text.contains("Subject: Reset your password"))
        #expect(text.contains("Message-ID: <"))
        let parts = text.components(separatedBy: "\r\n\r\n")
        let decoded = parts.compactMap { part -> String? in
            let base64 = part.components(separatedBy: "\r\n--").first?.replacingOccurrences(of: "\r\n", with: "") ?? ""
            return Data(base64Encoded: base64).map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(decoded.contains { $0.contains(token) }, "the token is in the mail")
        #expect(system.smtp.files(".eml").filter { $0.contains("X-Envelope-To: \(name)") }.count == 1)
    }

    @Test("an order failure: inbox item, push to the local provider, invalid token forgotten; read; live stream")
    func orderFailure() async throws {
        let system = try await start()
        defer { system.stop() }
        let http = system.harness
        let (_, access, _) = try await accounts.signedIn(http, "order")
        let bearer = ["Authorization": "Bearer \(access)"]
        let me = accounts.json(await http.get("/v1/me", headers: bearer)?.body)
        let userId = try #require(me["userId"] as? String)
        let good = "ok-\(UUID().uuidString)"
        let gone = "gone-\(UUID().uuidString)"
        for token in [good, gone] {
            let device = #"{"token": "\#(token)", "platform": "android", "osVersion": "14"}"#
            #expect(await http.send("POST", "/v1/me/devices", json: device, headers: bearer)?.status == 201)
        }
        #expect(await http.get("/v1/me/notifications")?.status == 401)
        let address = "paid-\(UUID().uuidString.prefix(8).lowercased())@example.org"
        let patched = await http.send("PATCH", "/v1/me", json: #"{"email": "\#(address)"}"#, headers: bearer)
        #expect(patched?.status == 200)

        try await publish(
            Orders.OrderFailed.topic, Orders.OrderFailed(userId: userId, orderId: "pc-42", reason: "card declined"))
        var inbox: [String: Any] = [:]
        #expect(
            try await eventually {
                inbox = accounts.json(await http.get("/v1/me/notifications", headers: bearer)?.body)
                return (inbox["items"] as? [[String: Any]])?.isEmpty == false
            }, "no inbox item: \(http.logs())")
        let item = try #require((inbox["items"] as? [[String: Any]])?.first)
        #expect(item["kind"] as? String == "order_failed")
        #expect((item["body"] as? String)?.contains("pc-42") == true)
        #expect(inbox["unreadCount"] as? Int == 1)
        #expect(
            try await eventually { system.push.files(".jsonl").first?.contains(good) == true },
            "no push to the local provider: \(http.logs())")
        #expect(
            try await eventually { await http.get("/v1/me/devices", headers: bearer)?.body.contains(gone) == false },
            "the unregistered token is forgotten")
        #expect(
            try await eventually {
                system.smtp.files(".eml").contains { $0.contains("X-Envelope-To: \(address)") }
            }, "the mail goes to the account's address, which notify looked up with auth's lookup_contacts")

        let id = try #require(item["notificationId"] as? String)
        let read = await http.send("POST", "/v1/me/notifications/\(id)/read", headers: bearer)
        #expect(read?.status == 200)
        #expect(accounts.json(read?.body)["unreadCount"] as? Int == 0)
        #expect(
            await http.send("POST", "/v1/me/notifications/\(UUID().uuidString)/read", headers: bearer)?.status == 404)
        let unread = accounts.json(await http.get("/v1/me/notifications?unread=true", headers: bearer)?.body)
        #expect((unread["items"] as? [Any])?.isEmpty == true)
        let all = accounts.json(await http.get("/v1/me/notifications?unread=false", headers: bearer)?.body)
        let unfiltered = accounts.json(await http.get("/v1/me/notifications", headers: bearer)?.body)
        #expect((all["items"] as? [Any])?.isEmpty == false)
        #expect((all["items"] as? [Any])?.count == (unfiltered["items"] as? [Any])?.count, "unread is false when left out")
        #expect(await http.get("/v1/me/notifications?unread=yes", headers: bearer)?.status == 400)

        async let streamed = http.get("/v1/me/notifications/stream?maxSeconds=5", headers: bearer)
        try await Task.sleep(for: .seconds(1.5))
        try await publish(
            Orders.OrderFailed.topic, Orders.OrderFailed(userId: userId, orderId: "pc-43", reason: "out of stock"))
        let stream = await streamed
        #expect(stream?.status == 200)
        #expect(stream?.header("Content-Type")?.hasPrefix("text/event-stream") == true)
        #expect(stream?.body.contains("event: unread") == true)
        #expect(stream?.body.contains("pc-43") == true, "the new item arrives on the stream")
    }

    @Test(
        "GET/PUT /v1/me/notification-preferences and GET/POST/DELETE /v1/me/schedules; a one-off fires into the inbox")
    func preferencesAndSchedules() async throws {
        let system = try await start()
        defer { system.stop() }
        let http = system.harness
        let (_, access, _) = try await accounts.signedIn(http, "prefs")
        let bearer = ["Authorization": "Bearer \(access)"]
        let defaults = accounts.json(await http.get("/v1/me/notification-preferences", headers: bearer)?.body)
        #expect(defaults["timeZone"] as? String == "UTC")
        let critical =
            #"{"timeZone": "UTC", "channels": [{"kind": "password_reset", "channel": "email", "enabled": false}]}"#
        #expect(
            await http.send("PUT", "/v1/me/notification-preferences", json: critical, headers: bearer)?.status == 422)
        let badZone = #"{"timeZone": "Mars/Base", "channels": []}"#
        #expect(
            await http.send("PUT", "/v1/me/notification-preferences", json: badZone, headers: bearer)?.status == 400)
        let good = """
            {"timeZone": "Europe/Stockholm", "quietHours": {"start": "22:00", "end": "07:00"}, "locale": "sv",
             "channels": [{"kind": "order_failed", "channel": "email", "enabled": false}]}
            """
        let saved = await http.send("PUT", "/v1/me/notification-preferences", json: good, headers: bearer)
        #expect(saved?.status == 200)
        let stored = accounts.json(await http.get("/v1/me/notification-preferences", headers: bearer)?.body)
        #expect(stored["timeZone"] as? String == "Europe/Stockholm")
        #expect((stored["quietHours"] as? [String: Any])?["start"] as? String == "22:00")
        #expect((stored["channels"] as? [[String: Any]])?.first?["kind"] as? String == "order_failed")

        let recurring =
            #"{"variables": {"text": "Drink water"}, "timesOfDay": ["08:00", "14:00"], "daysOfWeek": [1,2,3,4,5]}"#
        let created = await http.send("POST", "/v1/me/schedules", json: recurring, headers: bearer)
        #expect(created?.status == 201)
        let schedule = accounts.json(created?.body)
        #expect(schedule["timeZone"] as? String == "Europe/Stockholm", "the user's zone by default")
        #expect(schedule["nextAt"] is Int)
        let id = try #require(schedule["scheduleId"] as? String)
        #expect(
            await http.send(
                "POST", "/v1/me/schedules", json: #"{"variables": {"text": "x"}, "timesOfDay": ["8"]}"#,
                headers: bearer)?.status == 400)
        #expect(await http.send("POST", "/v1/me/schedules", json: recurring)?.status == 401)
        // No variables at all is none, which a reminder's template refuses for its missing text.
        let bare = await http.send("POST", "/v1/me/schedules", json: #"{"timesOfDay": ["08:00"]}"#, headers: bearer)
        #expect(bare?.status == 400)
        let refusal = accounts.json(bare?.body)["details"] as? [String: Any]
        #expect(refusal?["field"] as? String == "variables" && refusal?["missing"] as? [String] == ["text"])
        let at = Int64(Date().timeIntervalSince1970 * 1000) + 1500
        let once = #"{"variables": {"text": "Stand up"}, "at": \#(at), "timeZone": "UTC"}"#
        #expect(await http.send("POST", "/v1/me/schedules", json: once, headers: bearer)?.status == 201)
        let listed = accounts.json(await http.get("/v1/me/schedules", headers: bearer)?.body)
        #expect((listed["items"] as? [Any])?.count == 2)
        let firstPage = accounts.json(await http.get("/v1/me/schedules?limit=1", headers: bearer)?.body)
        let cursor = try #require(firstPage["nextCursor"] as? String)
        let secondPage = accounts.json(
            await http.get("/v1/me/schedules?limit=1&cursor=\(cursor)", headers: bearer)?.body)
        #expect(secondPage["nextCursor"] == nil)
        let ids = { (page: [String: Any]) in
            ((page["items"] as? [[String: Any]]) ?? []).compactMap { $0["scheduleId"] as? String }
        }
        #expect(
            ids(firstPage) + ids(secondPage) == ids(listed), "a page at a time, the same schedules in the same order")
        #expect(
            try await eventually {
                await http.get("/v1/me/notifications", headers: bearer)?.body.contains("Stand up") == true
            }, "the one-off fired into the inbox")
        #expect(await http.send("DELETE", "/v1/me/schedules/\(id)", headers: bearer)?.status == 204)
        #expect(await http.send("DELETE", "/v1/me/schedules/\(id)", headers: bearer)?.status == 404)
    }

    @Test(
        "three replicas, one killed with SIGKILL mid-batch: every mail arrives, duplicates bounded; each schedule occurrence once"
    )
    func replicasAndKill() async throws {
        let sessions = 4
        let system = try await start(
            replicas: 3,
            extra: ["DELIVERY_LEASE_MS": "3000", "DELIVERY_BATCH": "16", "SMTP_CONNECTIONS": "\(sessions)"])
        defer { system.stop() }
        let http = system.harness
        let (_, access, _) = try await accounts.signedIn(http, "many")
        let bearer = ["Authorization": "Bearer \(access)"]
        let at = Int64(Date().timeIntervalSince1970 * 1000) + 2000
        for index in 0..<10 {
            let once = #"{"variables": {"text": "sip \#(index)"}, "at": \#(at + Int64(index)), "timeZone": "UTC"}"#
            #expect(await http.send("POST", "/v1/me/schedules", json: once, headers: bearer)?.status == 201)
        }

        let count = 300
        let run = UUID().uuidString.prefix(8).lowercased()
        let reminders = (0..<count).map {
            Auth.UsernameReminderRequested(email: "kill-\(run)-\($0)@example.org", usernames: ["user\($0)"])
        }
        try await publish(Auth.UsernameReminderRequested.topic, reminders)
        let mine = { system.smtp.files(".eml").filter { $0.contains("kill-\(run)-") } }
        #expect(try await eventually { mine().count >= count / 5 }, "mail started to flow: \(http.logs())")
        let victim = try #require(http.processes.first { $0.name == "notify" }?.process)
        kill(victim.processIdentifier, SIGKILL)
        // Alone this takes seconds; beside the other suites' processes on two cores, minutes.
        #expect(try await eventually(180) { Set(mine().compactMap(Self.recipient)).count == count }, "nothing is lost")
        try await Task.sleep(for: .seconds(4))
        let received = mine()
        let distinct = Set(received.compactMap(Self.recipient)).count
        print("notify kill -9: \(count) mails, \(distinct) distinct received, \(received.count - distinct) duplicates")
        #expect(distinct == count)
        // A duplicate needs a mail the relay accepted while its 'accepted' mark was not yet
        // committed; a retry then resends it (and logs that): at most one per SMTP session of the
        // killed replica.
        let resent = try await scalar(
            """
            SELECT count(*)::int8 FROM notify.deliveries AS d JOIN notify.notifications AS n ON n.id = d.notification_id
            WHERE n.email LIKE \("kill-\(run)-%") AND d.detail LIKE 'resent after%'
            """)
        print("notify kill -9: \(resent) mails resent after an interrupted hand-over")
        #expect(received.count - distinct <= resent, "every duplicate is a logged resend")
        #expect(resent <= sessions, "at most one mail per SMTP session of the killed replica is in doubt")

        let inbox = accounts.json(await http.get("/v1/me/notifications?limit=50", headers: bearer)?.body)
        let items = (inbox["items"] as? [[String: Any]]) ?? []
        #expect(items.filter { ($0["body"] as? String)?.hasPrefix("sip ") == true }.count == 10, "each occurrence once")
    }

    /// The single integer a query against the system's database returns.
    func scalar(_ query: PostgresQuery) async throws -> Int {
        var configuration = try DatabaseSettings(url: SystemHarness.databaseURL).clientConfiguration()
        configuration.options.maximumConnections = 1
        let client = PostgresClient(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            for try await value in try await client.query(query, logger: Logger(label: "test")).decode(Int.self) {
                return value
            }
            return 0
        }
    }

    static func recipient(_ mail: String) -> String? {
        mail.split(separator: "\r\n").first { $0.hasPrefix("X-Envelope-To: ") }.map(String.init)
    }
}
