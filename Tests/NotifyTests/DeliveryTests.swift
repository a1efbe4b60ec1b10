import Contract
import Crypto
import Foundation
import Logging
import NIOSSL
import NotifyContract
import NotifyService
import Store
import Testing

/// Delivery through a real SMTP server (aiosmtpd) and local servers that answer like APNs and FCM.
@Suite("notify: delivery to SMTP and push providers", .serialized)
struct DeliveryTests {
    func deliverer(
        _ world: NotifyWorld, _ directory: FakeDirectory, smtp: SMTPSettings?, apns: APNsClient? = nil,
        fcm: FCMClient? = nil
    ) -> Deliverer {
        var deliverer = Deliverer(
            store: world.store, directory: directory,
            smtp: smtp.map { SMTPClient(settings: $0, logger: NotifyWorld.logger) },
            mailFrom: "no-reply@backplane.local",
            apns: apns, fcm: fcm, wake: AsyncStream { _ in }, logger: NotifyWorld.logger)
        deliverer.batch = 500
        return deliverer
    }

    func reset(_ email: String, user: UUID = UUID()) throws -> Submission {
        try Submission(
            id: UUID(), userId: user, email: email, kind: Notify.Kind.passwordReset, locale: "sv",
            variables: ["username": "ann", "token": "tok-12345", "expiresAt": "Mon, 01 Jan 2024 00:30:00 +0000"])
    }

    @Test("a reset mail reaches the SMTP server over STARTTLS with AUTH: headers, encoded subject, both parts")
    func resetMailOverStartTLS() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("notify-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (cert, key) = try SMTPSink.certificate(in: scratch)
        let sink = try await SMTPSink(arguments: [
            "--tls-cert", cert, "--tls-key", key, "--require-starttls", "--auth", "mailer:s3cret",
        ])
        defer { sink.stop() }
        try await NotifyWorld.with { world in
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(cert)
            tls.certificateVerification = .noHostnameVerification
            let settings = SMTPSettings(
                host: "127.0.0.1", port: sink.port, username: "mailer", password: "s3cret", startTLS: .required,
                tls: tls)
            let submission = try reset("ann@example.org")
            _ = try await world.store.submit(submission)
            #expect(try await deliverer(world, FakeDirectory(), smtp: settings).runOnce() == 1)
            let mails = sink.messages()
            #expect(mails.count == 1)
            let mail = try #require(mails.values.first)
            #expect(mail.contains("Message-ID: <\(submission.id.uuidString.lowercased())@backplane.local>"))
            #expect(mail.contains("X-Envelope-To: ann@example.org"))
            #expect(mail.contains("Subject: =?UTF-8?B?"))
            #expect(mail.contains("multipart/alternative") && mail.contains("text/html"))
            let text = Data("Hej ann,\n\nAnvänd den här koden för att välja ett nytt lösenord: tok-12345\n".utf8)
                .base64EncodedString()
            #expect(mail.replacingOccurrences(of: "\r\n", with: "").contains(text.prefix(60)))
            #expect(try await world.outcomes(submission.id, "email") == ["sent"])

        }
    }

    @Test("SMTP down: retried with exponential back-off, then dead-lettered with the reason")
    func retriesThenDeadLetter() async throws {
        try await NotifyWorld.with { world in
            let closed = SMTPSettings(host: "127.0.0.1", port: try freePort(), startTLS: .off)
            let submission = try reset("ann@example.org")
            _ = try await world.store.submit(submission)
            let deliverer = deliverer(world, FakeDirectory(), smtp: closed)
            #expect(try await deliverer.runOnce() == 1)
            #expect(try await deliverer.runOnce() == 0, "not before the back-off")
            world.clock.advance(by: 2)
            #expect(try await deliverer.runOnce() == 1, "after 2 s")
            world.clock.advance(by: 2)
            #expect(try await deliverer.runOnce() == 0, "the second delay is 4 s")
            world.clock.advance(by: 2)
            #expect(try await deliverer.runOnce() == 1)
            #expect(try await world.outcomes(submission.id, "email") == ["retry", "retry", "dead"])
            let dead = try #require(try await world.store.queue.deadLetters().first)
            #expect(dead.deadReason?.contains("cannot connect") == true)
        }
    }

    @Test(
        "after a crash: a mail the relay accepted is not sent again; one only marked 'sending' is resent, same Message-ID"
    )
    func handoverRecovery() async throws {
        let sink = try await SMTPSink()
        defer { sink.stop() }
        try await NotifyWorld.with { world in
            let accepted = try reset("kept@example.org")
            let inDoubt = try reset("doubt@example.org")
            let untouched = try reset("fresh@example.org")
            for submission in [accepted, inDoubt, untouched] { _ = try await world.store.submit(submission) }
            // A replica claims the three jobs, hands two over, and dies before completing them.
            #expect(try await world.store.queue.claim(limit: 10, lease: 30).count == 3)
            for (submission, state) in [(accepted, "accepted"), (inDoubt, "sending")] {
                try await world.client.query(
                    """
                    INSERT INTO \(unescaped: world.schema).mail_handovers (notification_id, state, at)
                    VALUES (\(submission.id), \(state), \(world.clock.now()))
                    """, logger: NotifyWorld.logger)
            }
            let deliverer = deliverer(
                world, FakeDirectory(), smtp: SMTPSettings(host: "127.0.0.1", port: sink.port, startTLS: .off))
            #expect(try await deliverer.runOnce() == 0, "the dead replica's lease still holds")
            world.clock.advance(by: 31)
            #expect(try await deliverer.runOnce() == 3)
            let mails = sink.messages().values
            #expect(mails.count == 2)
            #expect(!mails.contains { $0.contains("X-Envelope-To: kept@example.org") }, "accepted: not sent again")
            let resent = try #require(mails.first { $0.contains("X-Envelope-To: doubt@example.org") })
            #expect(resent.contains("Message-ID: <\(inDoubt.id.uuidString.lowercased())@backplane.local>"))
            #expect(mails.contains { $0.contains("X-Envelope-To: fresh@example.org") })
            for submission in [accepted, inDoubt, untouched] {
                #expect(try await world.outcomes(submission.id, "email") == ["sent"])
            }
            let details = try await world.client.query(
                "SELECT detail FROM \(unescaped: world.schema).deliveries WHERE detail IS NOT NULL ORDER BY detail",
                logger: NotifyWorld.logger)
            var found: [String] = []
            for try await detail in details.decode(String.self) { found.append(detail) }
            #expect(found.count == 2)
            #expect(found.first?.hasPrefix("accepted by the relay") == true)
            #expect(found.last?.hasPrefix("resent after an interrupted hand-over") == true)
            let left = try await world.count("SELECT count(*)::int8 FROM \(unescaped: world.schema).mail_handovers")
            #expect(left == 0, "completed jobs drop their marks")
        }
    }

    @Test("many mails over a few sessions: each exactly once; prints mails per second")
    func mailThroughput() async throws {
        let sink = try await SMTPSink()
        defer { sink.stop() }
        try await NotifyWorld.with { world in
            let count = 400
            for index in 0..<count { _ = try await world.store.submit(try reset("user\(index)@example.org")) }
            var deliverer = deliverer(
                world, FakeDirectory(), smtp: SMTPSettings(host: "127.0.0.1", port: sink.port, startTLS: .off))
            deliverer.smtpConnections = 8
            let started = ContinuousClock.now
            var claimed = 0
            while claimed < count { claimed += try await deliverer.runOnce() }
            let seconds = (ContinuousClock.now - started) / .seconds(1)
            print(
                "notify mail throughput: \(count) mails in \(seconds) s = \(Int(Double(count) / seconds))/s (debug build)"
            )
            let mails = sink.messages()
            #expect(mails.count == count && !mails.keys.contains { $0.contains("-dup") })
        }
    }

    @Test(
        "push: APNs (ES256 JWT) and FCM; 410/BadDeviceToken/UNREGISTERED forget the token; 429 retries only that device"
    )
    func push() async throws {
        let providers = FakeProviders()
        try await providers.serve { base in
            try await NotifyWorld.with { world in
                let key = P256.Signing.PrivateKey()
                let apns = try await APNsClient(
                    settings: .init(
                        endpoint: base, sandboxEndpoint: base, teamId: "TEAM123456", keyId: "KEY1234567",
                        topics: APNsTopics(byApp: ["tapwater": "app.tapwater"]), privateKeyPEM: key.pemRepresentation),
                    clock: world.clock)
                let fcm = FCMClient(
                    settings: .init(endpoint: base, projectId: "backplane"), tokens: StaticAccessToken("at"))
                let directory = FakeDirectory()
                let user = UUID()
                directory.add(
                    user,
                    devices: [
                        ("ok-ios", "ios"), ("gone-ios", "ios"), ("bad-ios", "ios"), ("busy-ios", "ios"),
                        ("ok-android", "android"), ("gone-android", "android"),
                    ])
                let reply = try await world.store.submit(
                    Submission(
                        id: UUID(), userId: user, email: nil, kind: Notify.Kind.reminder,
                        variables: ["text": "Drink water"]))
                let id = try #require(UUID(uuidString: reply.notificationId))
                let deliverer = deliverer(world, directory, smtp: nil, apns: apns, fcm: fcm)
                #expect(try await deliverer.runOnce() == 1)
                #expect(Set(directory.forgotten) == ["gone-ios", "bad-ios", "gone-android"])
                #expect(providers.count("ok-ios") == 1 && providers.count("busy-ios") == 1)
                world.clock.advance(by: 2)
                #expect(try await deliverer.runOnce() == 1, "the 429 is retried")
                #expect(providers.count("busy-ios") == 2)
                #expect(providers.count("ok-ios") == 1, "a device that got it is not pushed again")
                #expect(providers.count("ok-android") == 1)
                let outcomes = try await world.outcomes(id, "push")
                #expect(outcomes.filter { $0 == "sent" }.count == 3)
                #expect(outcomes.filter { $0 == "token_removed" }.count == 3)
                let auth = try #require(providers.authorizations.withLock { $0.first { $0.hasPrefix("bearer ") } })
                let header = try #require(auth.dropFirst(7).split(separator: ".").first)
                var padded = header.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                while padded.count % 4 != 0 { padded += "=" }
                let json = String(decoding: Data(base64Encoded: padded) ?? Data(), as: UTF8.self)
                #expect(json.contains("ES256") && json.contains("KEY1234567"))
            }
        }
    }

    @Test("push throughput to the local provider; prints pushes per second")
    func pushThroughput() async throws {
        let providers = FakeProviders()
        try await providers.serve { base in
            try await NotifyWorld.with { world in
                let fcm = FCMClient(
                    settings: .init(endpoint: base, projectId: "backplane"), tokens: StaticAccessToken("at"))
                let directory = FakeDirectory()
                let count = 1000
                for index in 0..<count {
                    let user = UUID()
                    directory.add(user, devices: [("ok-\(index)", "android")])
                    _ = try await world.store.submit(
                        Submission(
                            id: UUID(), userId: user, email: nil, kind: Notify.Kind.reminder, variables: ["text": "x"]))
                }
                let deliverer = deliverer(world, directory, smtp: nil, fcm: fcm)
                let started = ContinuousClock.now
                var claimed = 0
                while claimed < count { claimed += try await deliverer.runOnce() }
                let seconds = (ContinuousClock.now - started) / .seconds(1)
                print(
                    "notify push throughput: \(count) pushes in \(seconds) s = \(Int(Double(count) / seconds))/s (debug build)"
                )
                #expect(providers.total == count)
            }
        }
    }
}
