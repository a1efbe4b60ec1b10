import Contract
import Crypto
import Foundation
import Metrics
import NotifyContract

extension Deliverer {
    /// The counter an alert watches: pushes refused because of our set-up, by app and reason.
    public static let configErrorsMetric = "backplane_notify_push_config_errors_total"

    /// Pushes one notification to the devices it has not reached yet. A provider's 429 or 5xx
    /// retries the job later (devices that accepted it are logged and not pushed again); an
    /// invalid token is forgotten at auth; a configuration error (wrong topic, key, project)
    /// keeps the token, is logged and counted, and retries the job with back-off (an operator
    /// may mend the setting meanwhile); other refusals dead-letter the job.
    func push(_ work: DeliveryPlan.Push) async -> DeliveryResult {
        let notification = work.notification
        let channel = Notify.Channel.push
        var lines: [DeliveryLine] = []
        var retry: [String] = []
        var failed: [String] = []
        var refused: [Notify.DeviceTokenRefused] = []
        for device in work.devices {
            let isIOS = device.platform == "ios"
            guard let provider = isIOS ? apns : fcm else {
                let detail = "no \(isIOS ? "APNs" : "FCM") credentials configured"
                lines.append(notification.line(channel, "skipped", target: device.deviceId, detail: detail))
                continue
            }
            let outcome = await provider.send(
                PushMessage(
                    notificationId: notification.id, token: device.token, title: notification.title,
                    body: notification.body, app: device.app, apnsEnvironment: device.apnsEnvironment))
            switch outcome {
            case .delivered:
                // A device without an account is named by its sender's id, never by its token.
                let target = notification.device == nil ? device.token : device.deviceId
                lines.append(notification.line(channel, "sent", target: target, detail: device.platform))
            case .invalidToken(let reason) where notification.device != nil:
                // Not auth's token: the sender (civic) owns it and is told, by an event.
                lines.append(notification.line(channel, "skipped", target: device.deviceId, detail: "token refused: \(reason)"))
                refused.append(
                    Notify.DeviceTokenRefused(
                        deviceId: device.deviceId, tokenSHA256: SHA256.hash(data: Data(device.token.utf8)).map { String(format: "%02x", $0) }.joined(),
                        reason: reason))
            case .invalidToken(let reason):
                do {
                    try await directory.forget(token: device.token)
                    lines.append(notification.line(channel, "token_removed", target: device.deviceId, detail: reason))
                } catch {
                    retry.append("could not forget a refused token: \(error)")
                }
            case .misconfigured(let reason):
                let provider = isIOS ? "APNs" : "FCM"
                let app = appLabel(device.app)
                // The device id, never the token: a push token is a secret.
                logger.error(
                    "push refused: provider configuration",
                    metadata: [
                        "provider": "\(provider)", "app": "\(app)", "reason": "\(reason)",
                        "apnsEnvironment": "\(isIOS ? device.apnsEnvironment.rawValue : "-")",
                        "deviceId": "\(device.deviceId)", "notificationId": "\(notification.id)",
                    ])
                Counter(
                    label: Self.configErrorsMetric, dimensions: [("app", app), ("reason", reason)],
                    factory: metrics ?? MetricsSystem.factory
                ).increment()
                lines.append(notification.line(channel, "config_error", target: device.deviceId, detail: reason))
                retry.append("\(provider) configuration for app \(app): \(reason)")
            case .retry(let reason):
                retry.append(reason)
            case .failed(let reason):
                failed.append(reason)
            }
        }
        var result: DeliveryResult
        if !retry.isEmpty {
            result = .failed(work.job, notification, retry.joined(separator: "; "), lines)
        } else if !failed.isEmpty {
            result = .failed(work.job, notification, failed.joined(separator: "; "), permanent: true, lines)
        } else {
            result = .done(work.job, lines)
        }
        result.refusedDevices = refused
        return result
    }

    /// A device's app as a metric label: a known app's name, `none` or `other`.
    func appLabel(_ app: String?) -> String {
        guard let app = app?.lowercased() else { return "none" }
        return knownApps.contains(app) ? app : "other"
    }
}
