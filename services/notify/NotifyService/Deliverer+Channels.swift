import Contract
import Foundation
import Store

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

    /// Sends `jobs` over one SMTP session; a connection failure fails the rest for a retry.
    func deliverMails(_ jobs: [Job]) async {
        var ready: [(Job, NotificationStore.Stored, MailMessage)] = []
        for job in jobs {
            guard let id = payload(job), let notification = try? await store.notification(id) else {
                try? await store.queue.complete(job)
                continue
            }
            do {
                var address = notification.email
                if address == nil, let userId = notification.userId { address = try await directory.email(of: userId) }
                guard let address else {
                    await skip(job, notification, channel: Notify.Channel.email, reason: "no e-mail address on file")
                    continue
                }
                ready.append((job, notification, try mail(for: notification, to: address)))
            } catch {
                await finish(
                    job, notification.id, userId: notification.userId, channel: Notify.Channel.email,
                    result: .failure(DeliveryFailure(reason: "address lookup failed: \(error)", permanent: false)))
            }
        }
        guard !ready.isEmpty else { return }
        guard let smtp else {
            for (job, notification, _) in ready {
                await finish(
                    job, notification.id, userId: notification.userId, channel: Notify.Channel.email,
                    result: .failure(DeliveryFailure(reason: "no SMTP relay configured (SMTP_HOST)", permanent: true)))
            }
            return
        }
        var next = 0
        do {
            try await smtp.withSession { session in
                while next < ready.count {
                    let (job, notification, message) = ready[next]
                    next += 1
                    do {
                        try await session.send(message)
                        await finish(
                            job, notification.id, userId: notification.userId, channel: Notify.Channel.email,
                            result: .success(message.to))
                    } catch let error as SMTPError where error.code != 0 {
                        await finish(
                            job, notification.id, userId: notification.userId, channel: Notify.Channel.email,
                            result: .failure(DeliveryFailure(reason: "SMTP \(error)", permanent: error.permanent)))
                    }
                }
            }
        } catch {
            // The session could not open or broke (connection, greeting, TLS or AUTH; a relay
            // or its settings can be mended): the message in flight and the rest are retried.
            let from = max(0, next - 1)
            for (job, notification, _) in ready[from...] {
                await finish(
                    job, notification.id, userId: notification.userId, channel: Notify.Channel.email,
                    result: .failure(DeliveryFailure(reason: "SMTP \(error)", permanent: false)))
            }
        }
    }

    /// Pushes one notification to every device of its user; devices a provider already accepted
    /// (in the delivery log) are not pushed again on a retry.
    func deliverPush(_ job: Job) async {
        guard let id = payload(job), let notification = try? await store.notification(id),
            let userId = notification.userId
        else {
            try? await store.queue.complete(job)
            return
        }
        let channel = Notify.Channel.push
        do {
            let devices = try await directory.devices(of: userId)
            if devices.isEmpty {
                await skip(job, notification, channel: channel, reason: "no devices")
                return
            }
            let done = try await store.pushedTokens(of: id)
            var retry: [String] = []
            var failed: [String] = []
            for device in devices where !done.contains(device.token) {
                guard let provider = device.platform == "ios" ? apns : fcm else {
                    try await store.log(
                        id, userId: userId, channel: channel, target: device.deviceId, outcome: "skipped",
                        detail: "no \(device.platform == "ios" ? "APNs" : "FCM") credentials configured")
                    continue
                }
                let outcome = await provider.send(
                    PushMessage(
                        notificationId: id, token: device.token, title: notification.title, body: notification.body))
                switch outcome {
                case .delivered:
                    try await store.log(
                        id, userId: userId, channel: channel, target: device.token, outcome: "sent",
                        detail: device.platform)
                case .invalidToken(let reason):
                    try await directory.forget(token: device.token)
                    try await store.log(
                        id, userId: userId, channel: channel, target: device.deviceId, outcome: "token_removed",
                        detail: reason)
                case .retry(let reason):
                    retry.append(reason)
                case .failed(let reason):
                    failed.append(reason)
                }
            }
            if !retry.isEmpty {
                let outcome = try await store.queue.fail(job, reason: retry.joined(separator: "; "))
                if case .dead(let reason) = outcome {
                    try await store.log(id, userId: userId, channel: channel, outcome: "dead", detail: reason)
                } else {
                    try await store.log(
                        id, userId: userId, channel: channel, outcome: "retry", detail: retry.joined(separator: "; "))
                }
            } else if !failed.isEmpty {
                let reason = failed.joined(separator: "; ")
                try await store.queue.fail(job, reason: reason, permanent: true)
                try await store.log(id, userId: userId, channel: channel, outcome: "dead", detail: reason)
            } else {
                try await store.queue.complete(job)
            }
        } catch {
            await finish(
                job, id, userId: userId, channel: channel,
                result: .failure(DeliveryFailure(reason: "push failed: \(error)", permanent: false)))
        }
    }
}

extension NotificationStore {
    /// The device tokens a provider has already accepted notification `id` for.
    func pushedTokens(of id: UUID) async throws -> Set<String> {
        let rows = try await client.query(
            """
            SELECT target FROM \(unescaped: schema).deliveries
            WHERE notification_id = \(id) AND channel = 'push' AND outcome = 'sent' AND target IS NOT NULL
            """, logger: logger)
        var tokens = Set<String>()
        for try await token in rows.decode(String.self) { tokens.insert(token) }
        return tokens
    }
}
