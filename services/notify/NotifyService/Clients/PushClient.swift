import AuthContract
import Contract
import Foundation

/// What a push provider said about one device.
public enum PushOutcome: Sendable, Equatable {
    /// Accepted for delivery.
    case delivered
    /// The token is invalid or unregistered: forget it. Only APNs `Unregistered` (410) and
    /// `BadDeviceToken`, and FCM `UNREGISTERED` (404) say so.
    case invalidToken(String)
    /// Try again later (429, 5xx, no answer).
    case retry(String)
    /// Refused for a reason a retry cannot mend (e.g. a bad request).
    case failed(String)
    /// Our side is set up wrong for this device's app (topic, key, certificate, project): the
    /// token may well be good, so it is kept; the reason (the provider's word, e.g.
    /// `DeviceTokenNotForTopic`) is logged and counted for an alert.
    case misconfigured(String)
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
    /// The app the device registered from (picks the APNs topic); nil for devices registered
    /// before apps said which.
    public var app: String?
    /// The APNs host the token belongs to (ignored by FCM).
    public var apnsEnvironment: Auth.APNsEnvironment
    /// Creates a message.
    public init(
        notificationId: UUID, token: String, title: String, body: String, app: String? = nil,
        apnsEnvironment: Auth.APNsEnvironment = .production
    ) {
        self.notificationId = notificationId
        self.token = token
        self.title = title
        self.body = body
        self.app = app
        self.apnsEnvironment = apnsEnvironment
    }
}

/// APNs or FCM.
public protocol PushClient: Sendable {
    /// Sends one message; never throws (every failure is an outcome).
    func send(_ message: PushMessage) async -> PushOutcome
}
