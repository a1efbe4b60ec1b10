import Foundation
import Glibc
import Testing

/// `backplane-admin` against real processes on a database of its own: each command's effect is
/// seen where it lands (a sign-in through the gateway, a mail in the SMTP server, the schemas).
@Suite("backplane-admin against the running system", .serialized)
struct AdminToolTests {
    let accounts = AccountHTTPTests()

    /// Waits until the gateway answers /readyz with 200.
    func ready(_ system: SystemHarness) async throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        try #require(await system.get("/readyz")?.status == 200, "\(system.logs())")
    }

    /// The roles an access token carries (its payload is not checked here: the gateway does).
    func roles(_ token: String) throws -> [String] {
        var part = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        while part.count % 4 != 0 { part += "=" }
        let payload = try JSONSerialization.jsonObject(with: try #require(Data(base64Encoded: part))) as? [String: Any]
        return payload?["roles"] as? [String] ?? []
    }

    /// Signs in through the gateway: the access token, or nil when refused.
    func signIn(_ system: SystemHarness, _ username: String, _ password: String) async -> String? {
        let login = await system.post(
            "/v1/auth/login", json: #"{"username": "\#(username)", "password": "\#(password)"}"#)
        guard login?.status == 200, let body = login?.body else { return nil }
        return accounts.json(body)["accessToken"] as? String
    }

    @Test(
        "create-admin: a new admin (password from the environment) and a promoted account (from a file) sign in with the admin role; no password or a weak one is refused, and the password is printed nowhere"
    )
    func createAdmin() async throws {
        let system = try SystemHarness(ownDatabase: true)
        try system.start("broker")
        try system.start("auth")
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth"])
        defer { _ = system.stopBlocking() }
        try await ready(system)

        let username = "ops-\(UUID().uuidString.prefix(8))@example.org".lowercased()
        let password = "Ops-\(UUID().uuidString.prefix(12))"
        SecretLedger.note(password, as: "admin password")
        let (status, output) = try await system.runToEnd(
            "backplane-admin", arguments: ["create-admin", "--username", username], extra: ["ADMIN_PASSWORD": password])
        #expect(status == 0, "\(output)")
        #expect(output.contains("admin account \(username) ready"), "\(output)")
        #expect(!output.contains(password))
        let token = try #require(await signIn(system, username, password), "\(system.logs())")
        #expect(try roles(token).contains("admin"))
        #expect(await system.get("/v1/admin/users", headers: ["Authorization": "Bearer \(token)"])?.status == 200)

        // An account that exists: given the role and the file's password.
        let (member, memberToken, _) = try await accounts.signedIn(system, "member")
        #expect(await system.get("/v1/admin/users", headers: ["Authorization": "Bearer \(memberToken)"])?.status == 403)
        // Beside the logs, not among them: the harness searches its logs for every password.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("admin-password-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let second = "Ops-\(UUID().uuidString.prefix(12))"
        SecretLedger.note(second, as: "admin password")
        try Data((second + "\n").utf8).write(to: file)
        let (promoted, promotedOutput) = try await system.runToEnd(
            "backplane-admin", arguments: ["create-admin", "--username", member, "--password-file", file.path])
        #expect(promoted == 0, "\(promotedOutput)")
        #expect(await signIn(system, member, "Lund2026x") == nil, "the password it registered with is refused")
        let memberAdmin = try #require(await signIn(system, member, second))
        #expect(try roles(memberAdmin).contains("admin"))

        let (none, noneOutput) = try await system.runToEnd(
            "backplane-admin", arguments: ["create-admin", "--username", username], extra: ["ADMIN_PASSWORD": ""])
        #expect(none == 64, "\(noneOutput)")
        #expect(noneOutput.contains("no password"), "\(noneOutput)")
        let (weak, weakOutput) = try await system.runToEnd(
            "backplane-admin", arguments: ["create-admin", "--username", username],
            extra: ["ADMIN_PASSWORD": "password"])
        #expect(weak == 1, "\(weakOutput)")
        #expect(weakOutput.contains("invalid_argument"), "\(weakOutput)")
        #expect(await signIn(system, username, password) != nil, "a refused request changed nothing")
    }

    @Test(
        "dead-letters list, show and retry, and jobs: a mail dead for want of a relay is listed, counted, retried once the relay is set, and arrives"
    )
    func deadLetters() async throws {
        let smtp = try await NotifyHTTPTests.Sink("deploy/smtp-sink/smtp_sink.py") { port, dir in
            ["--port", "\(port)", "--dir", dir.appendingPathComponent("out").path]
        }
        defer { smtp.stop() }
        let system = try SystemHarness(ownDatabase: true)
        let notify = [
            "SMTP_STARTTLS": "off", "EVENTS_POLL_MS": "200", "DELIVERY_POLL_MS": "100", "SCHEDULER_POLL_MS": "100",
        ]
        try system.start("broker")
        try system.start("auth", extra: ["EVENTS_POLL_MS": "200"])
        // No relay: e-mail is dead-lettered at once.
        let first = try system.start("notify", extra: notify.merging(["SMTP_HOST": "none"]) { $1 })
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth,notify"])
        defer { _ = system.stopBlocking() }
        try await ready(system)

        let (name, _, _) = try await accounts.signedIn(system, "dead")
        #expect(await system.post("/v1/auth/password-reset", json: #"{"email": "\#(name)"}"#)?.status == 202)
        var letter: [String: Any]?
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, letter == nil {
            let (status, output) = try await system.runToEnd(
                "backplane-admin", arguments: ["dead-letters", "list", "--service", "notify", "--json"])
            #expect(status == 0, "\(output)")
            let listing = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
            letter = (listing?["items"] as? [[String: Any]])?.first
            if letter == nil { try await Task.sleep(for: .milliseconds(300)) }
        }
        let dead = try #require(letter, "no dead letter: \(system.logs())")
        let id = try #require(dead["id"] as? String)
        #expect(dead["service"] as? String == "notify")

        let (shown, showOutput) = try await system.runToEnd(
            "backplane-admin", arguments: ["dead-letters", "show", id, "--timeout", "2"])
        #expect(shown == 0, "\(showOutput)")
        #expect(showOutput.contains("id:          \(id)") && showOutput.contains("state:       dead"), "\(showOutput)")

        let (jobs, jobsOutput) = try await system.runToEnd(
            "backplane-admin", arguments: ["jobs", "--service", "notify", "--json"])
        #expect(jobs == 0, "\(jobsOutput)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(jobsOutput.utf8)) as? [[String: Any]])
        #expect(report.count == 1 && report[0]["service"] as? String == "notify" && report[0]["ok"] as? Bool == true)
        let queues = report[0]["queues"] as? [[String: Any]] ?? []
        #expect(
            queues.contains { $0["queue"] as? String == dead["queue"] as? String && $0["dead"] as? Int == 1 },
            "\(jobsOutput)")
        let (table, tableOutput) = try await system.runToEnd("backplane-admin", arguments: ["jobs", "--timeout", "2"])
        #expect(table == 1, "services that are not running do not answer: \(tableOutput)")
        #expect(tableOutput.contains("orders") && tableOutput.contains("no answer"), "\(tableOutput)")

        // The operator sets the relay and restarts notify, then retries the mail.
        kill(first.processIdentifier, SIGTERM)
        first.waitUntilExit()
        try system.start("notify", extra: notify.merging(["SMTP_PORT": "\(smtp.port)"]) { $1 })
        try await Task.sleep(for: .seconds(1))
        try await ready(system)
        let (retried, retryOutput) = try await system.runToEnd(
            "backplane-admin", arguments: ["dead-letters", "retry", id, "--service", "notify", "--timeout", "30"])
        #expect(retried == 0, "\(retryOutput)")
        #expect(retryOutput.contains("is queued again"), "\(retryOutput)")
        let arrival = Date().addingTimeInterval(30)
        while Date() < arrival, !smtp.files(".eml").contains(where: { $0.contains("X-Envelope-To: \(name)") }) {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(smtp.files(".eml").contains { $0.contains("X-Envelope-To: \(name)") }, "no mail: \(system.logs())")
        let (again, againOutput) = try await system.runToEnd(
            "backplane-admin", arguments: ["dead-letters", "retry", id, "--timeout", "2"])
        #expect(again == 1 && againOutput.contains("no dead letter"), "\(againOutput)")
        let (bad, badOutput) = try await system.runToEnd(
            "backplane-admin", arguments: ["dead-letters", "retry", "nope"])
        #expect(bad == 64, "\(badOutput)")
    }

    /// The migrations each worker ships, by schema, from the source tree.
    static func shipped() throws -> [String: [String]] {
        var shipped: [String: [String]] = [:]
        for line in try String(
            contentsOf: NotifyHTTPTests.repoRoot.appending(path: "deploy/services.txt"), encoding: .utf8
        )
        .split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[1] == "worker" else { continue }
            let name = String(fields[0])
            let folder = NotifyHTTPTests.repoRoot.appending(
                path: "services/\(name)/\(name.prefix(1).uppercased() + name.dropFirst())Service/Migrations")
            shipped[name] = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
                $0.hasSuffix(".sql")
            }
            .map { String($0.dropLast(4)) }.sorted()
        }
        return shipped
    }

    @Test(
        "migrate: --dry-run lists every schema's migrations on a fresh database and changes nothing; --apply applies them; then none is pending"
    )
    func migrate() async throws {
        let system = try SystemHarness(ownDatabase: true)
        let shipped = try Self.shipped()
        #expect(shipped.count == 8)
        let (dry, dryOutput) = try await system.runToEnd("backplane-admin", arguments: ["migrate", "--dry-run"])
        #expect(dry == 0, "\(dryOutput)")
        #expect(dryOutput.contains("events: 2 pending: 0001_create_event_log, 0002_event_traceparent"), "\(dryOutput)")
        for (schema, names) in shipped {
            #expect(
                dryOutput.contains("\(schema): \(names.count) pending: \(names.joined(separator: ", "))\n"),
                "\(schema): \(dryOutput)")
        }
        let (again, againOutput) = try await system.runToEnd("backplane-admin", arguments: ["migrate", "--dry-run"])
        #expect(again == 0 && againOutput == dryOutput, "a dry run changes nothing: \(againOutput)")

        let (applied, appliedOutput) = try await system.runToEnd("backplane-admin", arguments: ["migrate", "--apply"])
        #expect(applied == 0, "\(appliedOutput)")
        for (schema, names) in shipped {
            #expect(
                appliedOutput.contains("\(schema): applied \(names.count): \(names.joined(separator: ", "))\n"),
                "\(appliedOutput)")
        }
        let (after, afterOutput) = try await system.runToEnd("backplane-admin", arguments: ["migrate", "--dry-run"])
        #expect(after == 0 && afterOutput.hasSuffix("0 pending in all\n"), "\(afterOutput)")
        #expect(afterOutput.contains("auth: 0 pending\n"), "\(afterOutput)")

        // A service starting on the migrated database has nothing left to apply.
        try system.start("broker")
        try system.start("auth")
        defer { _ = system.stopBlocking() }
        let deadline = Date().addingTimeInterval(60)
        var answered = false
        while Date() < deadline, !answered {
            answered = try await system.runToEnd("auth", arguments: ["--probe"]).0 == 0
            if !answered { try await Task.sleep(for: .milliseconds(300)) }
        }
        #expect(answered, "\(system.logs())")
        #expect(
            !system.logs().contains("migrations applied") && !system.logs().contains("applied migration"),
            "\(system.logs())")

        let (neither, neitherOutput) = try await system.runToEnd("backplane-admin", arguments: ["migrate"])
        #expect(neither == 64, "\(neitherOutput)")
    }

    @Test(
        "check-config (and --help, which lists every command): this environment passes; a bad value is named for every process that reads it, with exit 78; a secret's value is not printed"
    )
    func checkConfig() async throws {
        let system = try SystemHarness()
        let (help, helpOutput) = try await system.runToEnd("backplane-admin", arguments: ["--help"])
        #expect(help == 0)
        for command in ["create-admin", "dead-letters", "jobs", "migrate", "check-config", "backup", "restore"] {
            #expect(helpOutput.contains("  \(command) "), "\(command) missing from --help: \(helpOutput)")
        }
        let (good, goodOutput) = try await system.runToEnd("backplane-admin", arguments: ["check-config"])
        #expect(good == 0, "\(goodOutput)")
        for process in [
            "broker", "gateway", "auth", "orders", "printing", "routing", "notify", "hydration", "civic", "social",
        ] {
            #expect(goodOutput.contains("\(process): ok\n"), "\(goodOutput)")
        }
        let (bad, badOutput) = try await system.runToEnd(
            "backplane-admin", arguments: ["check-config"], extra: ["HEARTBEAT_INTERVAL_MS": "fast"])
        #expect(bad == 78, "\(badOutput)")
        for process in ["broker", "auth", "social"] {
            #expect(badOutput.contains("\(process): HEARTBEAT_INTERVAL_MS=fast is not valid"), "\(badOutput)")
        }
        let (one, oneOutput) = try await system.runToEnd(
            "backplane-admin", arguments: ["check-config", "--process", "gateway"], extra: ["HTTP_PORT": "99999"])
        #expect(one == 78 && oneOutput.contains("gateway: HTTP_PORT=99999 is not valid"), "\(oneOutput)")
        #expect(!oneOutput.contains("auth:"), "only the process named")
        let (url, urlOutput) = try await system.runToEnd(
            "backplane-admin", arguments: ["check-config", "--process", "auth"],
            extra: ["DATABASE_URL": "postgres://app:hunter2secret@db:port/app"])
        #expect(url == 78 && urlOutput.contains("DATABASE_URL"), "\(urlOutput)")
        #expect(!urlOutput.contains("hunter2secret"))
    }

    @Test("backup with a restore point, then restore to it: the restored database has what was written before the point, not after, and printing's files")
    func backupAndRestore() async throws {
        let system = try SystemHarness()
        let scripts = SystemHarness.repositoryRoot.appendingPathComponent("deploy/scripts").path
        let folder = URL(fileURLWithPath: "/tmp/admin-backup-\(UUID().uuidString.prefix(8))")
        let files = folder.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        try Data("a printed card\n".utf8).write(to: files.appendingPathComponent("card.pdf"))
        let pg = folder.appendingPathComponent("pg").path
        let restored = folder.appendingPathComponent("restored").path
        let settings = [
            "BACKUP_REPO": folder.appendingPathComponent("repo").path, "BACKUP_PG_DIR": pg,
            "BACKUP_FILES_DIR": files.path, "BACKUP_ENCRYPTION_KEY": "test-key-\(UUID().uuidString)",
            "PG_ARCHIVE": "1", "RESTORE_DIR": restored,
        ]
        func shell(_ script: String) async throws -> (Int32, String) {
            try await system.runToEnd("/bin/bash", arguments: ["-c", script], extra: settings)
        }
        defer {
            _ = try? Process.run(URL(fileURLWithPath: "/bin/bash"), arguments: [
                "-c", "'\(scripts)/pg.sh' stop '\(pg)'; '\(scripts)/pg.sh' stop '\(restored)'; rm -rf '\(folder.path)'",
            ]).waitUntilExit()
        }
        let port = try SystemHarness.freePort()
        let (started, startOutput) = try await shell(
            "'\(scripts)/pg.sh' start '\(pg)' \(port) && psql \"$('\(scripts)/pg.sh' url '\(pg)' \(port))\" -qc "
                + "'CREATE TABLE marks (n int); INSERT INTO marks VALUES (1)'")
        try #require(started == 0, "\(startOutput)")
        let (backup, backupOutput) = try await system.runToEnd(
            "backplane-admin", arguments: ["backup", "--point", "before", "--scripts", scripts], extra: settings)
        try #require(backup == 0, "\(backupOutput)")
        let (later, laterOutput) = try await shell(
            "psql \"$('\(scripts)/pg.sh' url '\(pg)' \(port))\" -qc 'INSERT INTO marks VALUES (2)'")
        #expect(later == 0, "\(laterOutput)")

        let (restore, restoreOutput) = try await system.runToEnd(
            "backplane-admin", arguments: ["restore", "--target", "before", "--scripts", scripts], extra: settings)
        try #require(restore == 0, "\(restoreOutput)")
        let url = try #require(
            restoreOutput.split(separator: "\n").last { $0.hasPrefix("DATABASE_URL=") }?
                .split(separator: " ").first?.dropFirst("DATABASE_URL=".count))
        let (read, marks) = try await shell("psql '\(url)' -qAtc 'SELECT n FROM marks ORDER BY n'")
        #expect(read == 0 && marks == "1\n", "the row before the point only: \(marks)")
        let card = try String(contentsOfFile: restored + "/files/card.pdf", encoding: .utf8)
        #expect(card == "a printed card\n")
        #expect(!(backupOutput + restoreOutput).contains(settings["BACKUP_ENCRYPTION_KEY"]!), "the key is never printed")

        let (missing, missingOutput) = try await system.runToEnd(
            "backplane-admin", arguments: ["backup", "--scripts", folder.path])
        #expect(missing == 64 && missingOutput.contains("not an executable file"), "\(missingOutput)")
    }
}
