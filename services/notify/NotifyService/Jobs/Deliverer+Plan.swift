import AuthContract
import Contract
import Foundation
import NotifyContract
import Store

/// A claimed batch sorted out before anything is sent: jobs already settled (nothing to send,
/// a missing address, a failed lookup), mails to send and pushes to make.
struct DeliveryPlan: Sendable {
    /// A mail ready to go, and whether an earlier attempt may already have handed it over.
    struct Mail: Sendable {
        var job: Job
        var notification: NotificationStore.Stored
        var message: MailMessage
        var resend: Bool
    }

    /// A notification and the devices it has not reached yet.
    struct Push: Sendable {
        var job: Job
        var notification: NotificationStore.Stored
        var devices: [Auth.Device]
    }

    var settled: [DeliveryResult] = []
    var mails: [Mail] = []
    var pushes: [Push] = []
}

extension Deliverer {
    func payload(_ job: Job) -> UUID? {
        (try? JSONDecoder().decode(NotificationStore.JobPayload.self, from: job.payload))?.notificationId
    }

    /// Builds the mail for a stored notification.
    func mail(for notification: NotificationStore.Stored, to address: String) throws -> MailMessage {
        let kind = try NotificationCatalog.kind(notification.kind)
        let rendered = kind.template(for: notification.locale).render(notification.variables)
        let domain = mailFrom.split(separator: "@").last.map(String.init) ?? "backplane.local"
        return MailMessage(
            from: mailFrom, fromName: "Backplane", to: address, subject: rendered.title, text: rendered.text,
            html: rendered.html, messageId: "\(notification.id.uuidString.lowercased())@\(domain)",
            date: store.clock.now())
    }

    /// Loads the batch's notifications, its users' contacts (one auth call) and, for retried
    /// jobs, what earlier attempts did.
    func plan(_ jobs: [Job]) async throws -> DeliveryPlan {
        var plan = DeliveryPlan()
        let notifications = try await store.notifications(jobs.compactMap(payload))
        var claimed: [(Job, NotificationStore.Stored)] = []
        let now = store.clock.now()
        for job in jobs {
            if let id = payload(job), let notification = notifications[id] {
                if let notAfter = notification.notAfter, now >= notAfter {
                    // Held past the moment it was for (a retry, a backlog): too late to be of use.
                    let line = notification.line(job.kind, "skipped", detail: "not sent: its notAfter has passed")
                    plan.settled.append(.done(job, [line]))
                } else {
                    claimed.append((job, notification))
                }
            } else {
                plan.settled.append(.done(job))
            }
        }
        let users = Set(
            claimed.compactMap { job, notification in
                job.kind == Notify.Channel.email && notification.email != nil ? nil : notification.userId
            })
        var contacts: [UUID: Auth.Contact] = [:]
        var lookupFailure: String?
        if !users.isEmpty {
            do {
                contacts = try await directory.contacts(of: Array(users))
            } catch {
                lookupFailure = "contact lookup failed: \(error)"
            }
        }
        let earlier = try await store.earlierAttempts(of: claimed.filter { $0.0.attempts > 1 }.map(\.1.id))
        for (job, notification) in claimed {
            let contact = notification.userId.flatMap { contacts[$0] }
            if job.kind == Notify.Channel.email {
                plan.settled += planMail(job, notification, contact, lookupFailure, earlier, into: &plan.mails)
            } else if let device = notification.device {
                // One device without an account: pushed unless an earlier attempt reached it.
                let reached = earlier.pushed[notification.id] ?? []
                let target = Auth.Device(
                    deviceId: device.deviceId, userId: "", token: device.token, platform: device.platform,
                    osVersion: "", app: device.app,
                    apnsEnvironment: Auth.APNsEnvironment(rawValue: device.apnsEnvironment ?? "") ?? .production)
                if reached.contains(device.deviceId) {
                    plan.settled.append(.done(job))
                } else {
                    plan.pushes.append(.init(job: job, notification: notification, devices: [target]))
                }
            } else if notification.userId == nil {
                plan.settled.append(.done(job))
            } else if let lookupFailure {
                plan.settled.append(.failed(job, notification, lookupFailure))
            } else if let devices = contact?.devices, !devices.isEmpty {
                let reached = earlier.pushed[notification.id] ?? []
                plan.pushes.append(
                    .init(job: job, notification: notification, devices: devices.filter { !reached.contains($0.token) })
                )
            } else {
                plan.settled.append(
                    .done(job, [notification.line(Notify.Channel.push, "skipped", detail: "no devices")]))
            }
        }
        return plan
    }

    /// Adds the mail of `job` to `mails`, or returns how it is settled without sending.
    func planMail(
        _ job: Job, _ notification: NotificationStore.Stored, _ contact: Auth.Contact?, _ lookupFailure: String?,
        _ earlier: NotificationStore.EarlierAttempts, into mails: inout [DeliveryPlan.Mail]
    ) -> [DeliveryResult] {
        let channel = Notify.Channel.email
        let handover = earlier.handovers[notification.id]
        if handover == "accepted" {
            let line = notification.line(
                channel, "sent", target: notification.email ?? contact?.email,
                detail: "accepted by the relay before the previous attempt ended")
            return [.done(job, [line])]
        }
        var address = notification.email
        if address == nil, notification.userId != nil {
            if let lookupFailure { return [.failed(job, notification, lookupFailure)] }
            address = contact?.email
        }
        guard let address else {
            return [.done(job, [notification.line(channel, "skipped", detail: "no e-mail address on file")])]
        }
        do {
            let message = try mail(for: notification, to: address)
            mails.append(.init(job: job, notification: notification, message: message, resend: handover == "sending"))
            return []
        } catch {
            return [.failed(job, notification, "cannot render the mail: \(error)", permanent: true)]
        }
    }
}
