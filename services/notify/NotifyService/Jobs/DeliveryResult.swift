import Foundation
import NotifyContract
import Store

/// One line for the delivery log (`notify.deliveries`), written with the rest of its batch.
struct DeliveryLine: Codable, Sendable {
    var notificationId: UUID
    var userId: UUID?
    var channel: String
    var target: String?
    var outcome: String
    var detail: String?

    enum CodingKeys: String, CodingKey {
        case notificationId = "notification_id"
        case userId = "user_id"
        case channel, target, outcome, detail
    }
}

/// Why an attempt failed, and whether retrying can help.
struct DeliveryFailure: Error, Sendable {
    var reason: String
    var permanent: Bool
}

/// What became of one claimed job: done (no failure) or failed, and its delivery-log lines.
struct DeliveryResult: Sendable {
    var job: Job
    var failure: DeliveryFailure?
    var lines: [DeliveryLine]
    /// Directly addressed devices whose token the provider refused: announced to their sender
    /// in the transaction that records the batch.
    var refusedDevices: [Notify.DeviceTokenRefused] = []
    /// The notification a failure's log line is about (nil: a job with nothing to deliver).
    var notification: NotificationStore.Stored?

    static func done(_ job: Job, _ lines: [DeliveryLine] = []) -> DeliveryResult {
        DeliveryResult(job: job, failure: nil, lines: lines)
    }

    static func failed(
        _ job: Job, _ notification: NotificationStore.Stored, _ reason: String, permanent: Bool = false,
        _ lines: [DeliveryLine] = []
    ) -> DeliveryResult {
        DeliveryResult(
            job: job, failure: DeliveryFailure(reason: reason, permanent: permanent), lines: lines,
            notification: notification)
    }
}

extension NotificationStore.Stored {
    /// A delivery-log line about this notification.
    func line(_ channel: String, _ outcome: String, target: String? = nil, detail: String? = nil) -> DeliveryLine {
        DeliveryLine(
            notificationId: id, userId: userId, channel: channel, target: target, outcome: outcome, detail: detail)
    }
}
