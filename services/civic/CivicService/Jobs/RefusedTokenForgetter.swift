import Contract
import Foundation
import Logging
import NotifyContract
import Store

/// The consumer `civic.tokens`: a device whose token the push provider refused is unsubscribed
/// (if its token is unchanged).
public struct RefusedTokenForgetter: Sendable {
    let subscriptions: SubscriptionStore
    let logger: Logger

    public init(subscriptions: SubscriptionStore, logger: Logger) {
        self.subscriptions = subscriptions
        self.logger = logger
    }

    /// Handles one `notify.device_token_refused`, in the transaction that records it as handled.
    public func handle(_ event: StoredEvent, in tx: Transaction) async throws {
        let refused = try Wire.makeDecoder().decode(Notify.DeviceTokenRefused.self, from: event.payload)
        guard let id = UUID(uuidString: refused.deviceId) else { return }
        if try await subscriptions.forgetRefused(id, tokenSHA256: refused.tokenSHA256, in: tx) {
            logger.info(
                "subscription ended: its push token was refused",
                metadata: ["subscriptionId": "\(id)", "reason": "\(refused.reason)"])
        }
    }
}
