import Foundation

/// What a push provider said about one device.
public enum PushOutcome: Sendable, Equatable {
    /// Accepted for delivery.
    case delivered
    /// The token is invalid or unregistered: forget it.
    case invalidToken(String)
    /// Try again later (429, 5xx, no answer).
    case retry(String)
    /// Refused for a reason a retry cannot mend (e.g. a bad request or credentials).
    case failed(String)
}

/// One push message.
public struct PushMessage: Sendable, Equatable {
    /// The notification's id (APNs `apns-id`, FCM data field).
    public var notificationId: UUID
    /// The device token.
    public var token: String
    /// The alert title.
    public var title: String
    /// The alert body.
    public var body: String
    /// Creates a message.
    public init(notificationId: UUID, token: String, title: String, body: String) {
        self.notificationId = notificationId
        self.token = token
        self.title = title
        self.body = body
    }
}

/// APNs or FCM.
public protocol PushProvider: Sendable {
    /// Sends one message; never throws (every failure is an outcome).
    func send(_ message: PushMessage) async -> PushOutcome
}
