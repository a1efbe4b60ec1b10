import Contract
import Foundation
import NotifyContract
import ServiceKit
import Store

extension Deliverer {
    /// Sends `mails` over one SMTP session. Each hand-over is marked `sending` (committed before
    /// the content goes out) and `accepted` after the relay's 250, so a retry after a crash knows
    /// which mails the relay may already hold. A broken session fails the rest for a retry.
    func sendMails(_ mails: [DeliveryPlan.Mail], spans: JobSpans) async -> [DeliveryResult] {
        guard let smtp else {
            return mails.map {
                .failed($0.job, $0.notification, "no SMTP relay configured (SMTP_HOST)", permanent: true)
            }
        }
        let channel = Notify.Channel.email
        var results: [DeliveryResult] = []
        var next = 0
        do {
            try await smtp.withSession { session in
                while next < mails.count {
                    let mail = mails[next]
                    next += 1
                    let id = mail.notification.id
                    do {
                        try await spans.within(mail.job) {
                            try await session.send(mail.message) { [store] in
                                try await store.markHandover(id, "sending")
                            }
                        }
                    } catch let error as SMTPError where error.code != 0 {
                        // Refused, so not handed over: a retry is a first send again.
                        try? await store.clearHandover(id)
                        results.append(
                            .failed(mail.job, mail.notification, "SMTP \(error)", permanent: error.permanent))
                        continue
                    }
                    do {
                        try await spans.within(mail.job) { try await store.markHandover(id, "accepted") }
                    } catch {
                        logger.warning(
                            "could not mark a mail accepted",
                            metadata: ["jobId": "\(mail.job.id)", "error": "\(SafeErrorDescription.of(error))"])
                    }
                    let detail = mail.resend ? "resent after an interrupted hand-over (same Message-ID)" : nil
                    results.append(
                        .done(
                            mail.job, [mail.notification.line(channel, "sent", target: mail.message.to, detail: detail)]
                        ))
                }
            }
        } catch {
            // The session could not open or broke (connection, greeting, TLS or AUTH; a relay
            // or its settings can be mended): the message in flight and the rest are retried.
            for mail in mails[max(0, next - 1)...] {
                results.append(.failed(mail.job, mail.notification, "SMTP \(error)"))
            }
        }
        return results
    }
}
