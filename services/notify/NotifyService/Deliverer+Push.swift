import Contract
import Foundation

extension Deliverer {
    /// Pushes one notification to the devices it has not reached yet. A provider's 429 or 5xx
    /// retries the job later (devices that accepted it are logged and not pushed again); an
    /// invalid token is forgotten at auth; other refusals dead-letter the job.
    func push(_ work: DeliveryPlan.Push) async -> DeliveryResult {
        let notification = work.notification
        let channel = Notify.Channel.push
        var lines: [DeliveryLine] = []
        var retry: [String] = []
        var failed: [String] = []
        for device in work.devices {
            guard let provider = device.platform == "ios" ? apns : fcm else {
                let detail = "no \(device.platform == "ios" ? "APNs" : "FCM") credentials configured"
                lines.append(notification.line(channel, "skipped", target: device.deviceId, detail: detail))
                continue
            }
            let outcome = await provider.send(
                PushMessage(
                    notificationId: notification.id, token: device.token, title: notification.title,
                    body: notification.body))
            switch outcome {
            case .delivered:
                lines.append(notification.line(channel, "sent", target: device.token, detail: device.platform))
            case .invalidToken(let reason):
                do {
                    try await directory.forget(token: device.token)
                    lines.append(notification.line(channel, "token_removed", target: device.deviceId, detail: reason))
                } catch {
                    retry.append("could not forget a refused token: \(error)")
                }
            case .retry(let reason):
                retry.append(reason)
            case .failed(let reason):
                failed.append(reason)
            }
        }
        if !retry.isEmpty { return .failed(work.job, notification, retry.joined(separator: "; "), lines) }
        if !failed.isEmpty {
            return .failed(work.job, notification, failed.joined(separator: "; "), permanent: true, lines)
        }
        return .done(work.job, lines)
    }
}
