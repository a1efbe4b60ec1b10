import Contract
import Foundation
import NotifyContract
import NotifyService

/// E-mail to the local SMTP sink (aiosmtpd, `deploy/smtp-sink/smtp_sink.py`): `count` reset
/// mails, delivered by `deliverers` deliverers of `sessions` SMTP sessions each.
struct MailBench {
    var count = 2000
    var sessions = 8
    var deliverers = 2
    var batch = 250

    func run() async throws {
        let port = try await unusedPort()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("notify-bench-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = repositoryRoot.appendingPathComponent("deploy/smtp-sink/smtp_sink.py").path
        let sink = try Child("/usr/bin/env", ["python3", script, "--port", "\(port)", "--dir", directory.path])
        defer { sink.stop() }
        _ = try sink.waitFor("ready")
        try await BenchWorld.with { world in
            let submissions = try (0..<count).map { index in
                try Submission(
                    id: UUID(), userId: nil, email: "reader\(index)@example.org", kind: Notify.Kind.usernameReminder,
                    variables: ["usernames": "reader\(index)"])
            }
            try await world.submit(submissions)
            let smtp = SMTPClient(
                settings: SMTPSettings(host: "127.0.0.1", port: port, startTLS: .off), logger: BenchWorld.logger)
            var deliverer = Deliverer(
                store: world.store, directory: BenchDirectory(contacts: [:]), smtp: smtp,
                mailFrom: "no-reply@backplane.local", apns: nil, fcm: nil, wake: AsyncStream { _ in },
                logger: BenchWorld.logger)
            deliverer.batch = batch
            deliverer.smtpConnections = sessions
            let started = ContinuousClock.now
            try await drain(deliverer, copies: deliverers)
            let elapsed = seconds(since: started)
            let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            let stored = files.filter { $0.hasSuffix(".eml") }.count
            let sent = try await world.database.sentDeliveries()
            print(
                "notify-bench mail: \(count) mails in \(String(format: "%.2f", elapsed)) s = "
                    + "\(Int(Double(count) / elapsed)) mails/s; \(stored) stored by the SMTP sink, \(sent) logged sent "
                    + "(\(deliverers) deliverers x \(sessions) SMTP sessions, batch \(batch), \(buildKind))")
        }
    }
}

/// Runs `copies` claim loops of `deliverer` at once (as that many replicas would) until no job
/// is left.
func drain(_ deliverer: Deliverer, copies: Int) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<copies {
            group.addTask { while try await deliverer.runOnce() > 0 {} }
        }
        try await group.waitForAll()
    }
}
