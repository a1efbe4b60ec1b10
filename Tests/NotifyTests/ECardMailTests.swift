import Contract
import Foundation
import NotifyContract
import NotifyService
import Synchronization
import Testing

/// E-card mails through a real SMTP server (aiosmtpd): the image fetched at delivery time rides
/// inline; an image that cannot be fetched yet makes the delivery wait and retry.
@Suite("notify: e-card mails carry their image", .serialized)
struct ECardMailTests {
    func ecard(_ email: String, token: String) throws -> Submission {
        try Submission(
            id: UUID(), userId: nil, email: email, kind: Notify.Kind.ecard,
            variables: [
                "senderName": "Ann", "message": "Hälsningar från Lund", "imageToken": token,
                "imageUrl": "https://cards.example.org/v1/ecards/\(token)",
            ])
    }

    @Test("two recipients of one card: one fetch, two mails with the JPEG inline; a missing image is retried, not sent")
    func inlineAndRetry() async throws {
        let sink = try await SMTPSink()
        defer { sink.stop() }
        try await NotifyWorld.with { world in
            let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0] + (0..<3000).map { UInt8(truncatingIfNeeded: $0) })
            let fetched = Mutex<[String]>([])
            let available = Mutex(false)
            var deliverer = Deliverer(
                store: world.store, directory: FakeDirectory(),
                smtp: SMTPClient(
                    settings: SMTPSettings(host: "127.0.0.1", port: sink.port, startTLS: .off),
                    logger: NotifyWorld.logger),
                mailFrom: "no-reply@backplane.local", apns: nil, fcm: nil, wake: AsyncStream { _ in },
                logger: NotifyWorld.logger)
            deliverer.attachments = ECardImageClient { token in
                fetched.withLock { $0.append(token) }
                guard available.withLock({ $0 }) else { throw ServiceError.notFound("no such e-card") }
                return jpeg
            }
            let token = "tok\(UUID().uuidString.prefix(8))"
            let first = try ecard("bo@example.org", token: token)
            let second = try ecard("cy@example.org", token: token)
            for submission in [first, second] { _ = try await world.store.submit(submission) }

            #expect(try await deliverer.runOnce() == 2)
            #expect(sink.messages().isEmpty, "nothing sent without the image")
            #expect(try await world.outcomes(first.id, "email") == ["retry"])
            #expect(fetched.withLock { $0 } == [token], "one fetch per card and batch")

            available.withLock { $0 = true }
            world.clock.advance(by: 60)
            #expect(try await deliverer.runOnce() == 2)
            let mails = Array(sink.messages().values)
            #expect(mails.count == 2)
            for mail in mails {
                #expect(mail.contains("Content-Type: multipart/related"))
                #expect(mail.contains("Content-ID: <ecard.") && mail.contains("Content-Type: image/jpeg"))
                let unfolded = mail.replacingOccurrences(of: "\r\n", with: "")
                #expect(unfolded.contains(jpeg.base64EncodedString().prefix(200)), "the JPEG itself is in the mail")
            }
            #expect(try await world.outcomes(first.id, "email") == ["retry", "sent"])
        }
    }
}
