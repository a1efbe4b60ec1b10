import Contract
import Foundation
import NotifyContract
import Store

extension Deliverer {
    /// The batch's mails split into those without files and those that carry some; the latter
    /// go on their own lane, so a slow or absent source never holds the other mails back.
    func splitByAttachments(_ mails: [DeliveryPlan.Mail]) -> (
        plain: [DeliveryPlan.Mail], withFiles: [DeliveryPlan.Mail]
    ) {
        guard let attachments else { return (mails, []) }
        let carrying = mails.filter { attachments.carriesFiles($0.notification) }
        return (mails.filter { !attachments.carriesFiles($0.notification) }, carrying)
    }

    /// Fetches the files of `mails`, then sends those that have them over one SMTP session; a
    /// mail whose files cannot be fetched is not sent but failed for a retry (with the queue's
    /// back-off), never sent without them.
    func sendWithAttachments(_ mails: [DeliveryPlan.Mail], spans: JobSpans) async -> [DeliveryResult] {
        guard let attachments else { return await sendMails(mails, spans: spans) }
        let domain = mailFrom.split(separator: "@").last.map(String.init) ?? "backplane.local"
        let found = await attachments.attachments(for: mails.map(\.notification), domain: domain)
        var results: [DeliveryResult] = []
        var ready: [DeliveryPlan.Mail] = []
        for var mail in mails {
            switch found[mail.notification.id] {
            case .failure(let error):
                results.append(.failed(mail.job, mail.notification, "attachment not available: \(error)"))
            case .success(let files):
                mail.message.attachments = files
                ready.append(mail)
            case nil:
                ready.append(mail)
            }
        }
        return results + (ready.isEmpty ? [] : await sendMails(ready, spans: spans))
    }
}
