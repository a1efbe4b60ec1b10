import Contract
import Foundation
import NotifyContract
import OpenAPIRuntime
import ServiceKit

/// The live inbox: server-sent events fed by polling notify once a second.
extension GatewayAPI {
    func streamNotifications(_ input: Operations.StreamNotifications.Input) async throws
        -> Operations.StreamNotifications.Output
    {
        let scope = try self.scope
        _ = try scope.requireActor()
        let maxSeconds = min(max(input.query.maxSeconds ?? 300, 1), 3600)
        let first = try await callAsCaller(
            Notify.ListInbox.self, .init(limit: 1))
        let (bus, timeout) = (self.bus, settings.requestTimeout)
        let events = AsyncStream<ArraySlice<UInt8>> { continuation in
            let task = Task {
                continuation.yield(
                    ArraySlice(Array("event: unread\ndata: {\"unreadCount\":\(first.unreadCount)}\n\n".utf8)))
                var seen = Set(first.items.map(\.notificationId))
                var newest = first.items.first?.createdAt ?? 0
                let end = ContinuousClock.now + .seconds(maxSeconds)
                var lastBeat = ContinuousClock.now
                while ContinuousClock.now < end && !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    guard
                        let page = try? await bus.call(
                            Notify.ListInbox.self, .init(limit: 50), metadata: scope.metadata(deadline: timeout))
                    else { continue }
                    for item in page.items.reversed()
                    where item.createdAt >= newest && !seen.contains(item.notificationId) {
                        seen.insert(item.notificationId)
                        newest = max(newest, item.createdAt)
                        continuation.yield(ArraySlice(Array(Self.event(item).utf8)))
                    }
                    if ContinuousClock.now - lastBeat > .seconds(15) {
                        continuation.yield(ArraySlice(Array(": keep-alive\n\n".utf8)))
                        lastBeat = ContinuousClock.now
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return .ok(.init(body: .textEventStream(HTTPBody(events, length: .unknown, iterationBehavior: .single))))
    }

    static func event(_ item: Notify.InboxItem) -> String {
        let data = (try? JSONEncoder().encode(item)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "event: notification\nid: \(item.notificationId)\ndata: \(data)\n\n"
    }
}
