import Contract
import Foundation
import HydrationContract
import ServiceKit

extension Composer.Texts {
    /// Over the broker: hydration's `reminder_text`.
    public static func overBus(_ bus: BusClient, timeout: Duration = .seconds(5)) -> Composer.Texts {
        Composer.Texts { occurrence in
            let reply = try await bus.call(
                Hydration.ReminderText.self,
                .init(userId: occurrence.userId.uuidString.lowercased(), at: occurrence.dueAtMs),
                metadata: RequestMetadata(requestId: "notify-\(occurrence.notificationId.uuidString.lowercased())"),
                timeout: timeout)
            return text(of: reply)
        }
    }

    /// What a `reminder_text` reply means.
    public static func text(of reply: Hydration.ReminderText.Reply) -> Composer.Text {
        if reply.unplanned == true { return .unscheduled }
        guard !reply.skip, let text = reply.text else { return .skip }
        return .send(text)
    }
}
