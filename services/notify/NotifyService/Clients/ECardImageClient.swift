import Contract
import Foundation
import NotifyContract
import PrintingContract
import ServiceKit
import Store

/// Where the files a mail carries come from, fetched when the mail is about to go out.
public protocol MailAttachmentSource: Sendable {
    /// Whether the mail of `notification` carries files from this source.
    func carriesFiles(_ notification: NotificationStore.Stored) -> Bool
    /// The files the mails of `notifications` carry, by notification id, fetched once per batch;
    /// a failure for a notification whose file cannot be had now (its delivery is retried).
    func attachments(for notifications: [NotificationStore.Stored], domain: String) async
        -> [UUID: Result<[MailAttachment], any Error>]
}

/// E-card images from printing (`ecard_image`, asked without an actor: the token is the
/// credential), inline in the mail in place of the image link of the HTML part. One request per
/// card and batch, however many of its recipients the batch holds.
public struct ECardImageClient: MailAttachmentSource {
    let fetch: @Sendable (_ token: String) async throws -> Data

    /// Fetches through `fetch` (usually printing over the broker).
    public init(fetch: @escaping @Sendable (_ token: String) async throws -> Data) { self.fetch = fetch }

    public func carriesFiles(_ notification: NotificationStore.Stored) -> Bool {
        notification.kind == Notify.Kind.ecard && !(notification.variables["imageToken"] ?? "").isEmpty
    }

    public func attachments(for notifications: [NotificationStore.Stored], domain: String) async
        -> [UUID: Result<[MailAttachment], any Error>]
    {
        let cards = notifications.filter(carriesFiles)
        let tokens = Set(cards.compactMap { $0.variables["imageToken"] })
        // One task per card, all in flight at once, awaited in turn. Not a task group: under
        // e-card load, handing a finished child's (token, result) to the waiting group crashed
        // the process in the Swift 6.3 runtime (swift_retain in
        // TaskGroupBase::prepareWaitingTaskWithTask), three runs out of three.
        let fetch = self.fetch
        let fetches = tokens.map { token in
            (token, Task { () -> Result<Data, any Error> in
                do { return .success(try await fetch(token)) } catch { return .failure(error) }
            })
        }
        var images: [String: Result<Data, any Error>] = [:]
        for (token, task) in fetches { images[token] = await task.value }
        var found: [UUID: Result<[MailAttachment], any Error>] = [:]
        for notification in cards {
            guard let token = notification.variables["imageToken"], let image = images[token] else { continue }
            found[notification.id] = image.map { data in
                [
                    MailAttachment(
                        contentType: "image/jpeg", filename: "ecard.jpg", data: data,
                        contentId: "ecard.\(notification.id.uuidString.lowercased())@\(domain)",
                        replacesURL: notification.variables["imageUrl"])
                ]
            }
        }
        return found
    }
}

extension ECardImageClient {
    /// How long a fetch waits for printing before the mails of that card are retried later.
    public static let fetchTimeout: Duration = .seconds(5)

    /// Asks printing's `ecard_image` through the broker, without an actor; when no printing
    /// worker is registered (MMI), fails at once rather than waiting out the timeout.
    public static func overBus(_ bus: BusClient) -> ECardImageClient {
        ECardImageClient { token in
            guard try await bus.isServed(ServiceName.printing.rawValue) else {
                throw ServiceError(.unavailable, "no printing worker is registered")
            }
            let reply = try await bus.call(
                Printing.ECardImage.self, .init(token: token),
                metadata: RequestMetadata(requestId: "notify-\(UUID().uuidString.lowercased())", actor: nil),
                timeout: fetchTimeout)
            guard let data = Data(base64Encoded: reply.data) else {
                throw ServiceError(.internal, "printing sent an e-card image that is not base64")
            }
            return data
        }
    }
}
