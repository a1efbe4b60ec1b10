import Contract
import NotifyContract
import ServiceKit

/// notify's `send`, as civic calls it to hand over a new-bill push.
public struct NotifyClient: Sendable {
    let send: @Sendable (Notify.Send.Request) async throws -> Notify.Send.Reply
    public init(_ send: @escaping @Sendable (Notify.Send.Request) async throws -> Notify.Send.Reply) {
        self.send = send
    }

    /// notify's `send` over the broker, as a service (no actor).
    public static func overBus(_ bus: BusClient, timeout: Duration = .seconds(5)) -> NotifyClient {
        NotifyClient { request in
            try await bus.call(
                Notify.Send.self, request,
                metadata: RequestMetadata(requestId: "civic-push-\(request.notificationId)"), timeout: timeout)
        }
    }
}
