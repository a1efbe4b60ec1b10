import Contract
import Foundation
import NotifyContract
import OpenAPIRuntime
import ServiceKit

/// `/v1/me/notifications`, `/v1/me/notification-preferences`, `/v1/me/schedules`: answered by
/// the `notify` service on behalf of the signed-in caller.
extension GatewayAPI {
    func listNotifications(_ input: Operations.ListNotifications.Input) async throws
        -> Operations.ListNotifications.Output
    {
        let page = try await callAsCaller(
            Notify.ListInbox.self,
            .init(unreadOnly: input.query.unread ?? false, cursor: input.query.cursor, limit: input.query.limit))
        return .ok(
            .init(
                body: .json(
                    .init(
                        items: page.items.map(Components.Schemas.NotificationItem.init), nextCursor: page.nextCursor,
                        unreadCount: page.unreadCount))))
    }

    func markNotificationRead(_ input: Operations.MarkNotificationRead.Input) async throws
        -> Operations.MarkNotificationRead.Output
    {
        let reply = try await callAsCaller(Notify.MarkRead.self, .init(notificationId: input.path.notificationId))
        return .ok(.init(body: .json(.init(unreadCount: reply.unreadCount))))
    }

    func getNotificationPreferences(_ input: Operations.GetNotificationPreferences.Input) async throws
        -> Operations.GetNotificationPreferences.Output
    {
        .ok(.init(body: .json(.init(try await callAsCaller(Notify.GetPreferences.self, Empty())))))
    }

    func setNotificationPreferences(_ input: Operations.SetNotificationPreferences.Input) async throws
        -> Operations.SetNotificationPreferences.Output
    {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let request = Notify.Preferences(
            timeZone: body.timeZone, quietHours: body.quietHours.map { .init(start: $0.start, end: $0.end) },
            locale: body.locale,
            channels: body.channels.map { .init(kind: Notify.Kind($0.kind), channel: $0.channel.rawValue, enabled: $0.enabled) })
        return .ok(.init(body: .json(.init(try await callAsCaller(Notify.SetPreferences.self, request)))))
    }

    func listSchedules(_ input: Operations.ListSchedules.Input) async throws -> Operations.ListSchedules.Output {
        let reply = try await callAsCaller(
            Notify.ListSchedules.self, .init(cursor: input.query.cursor, limit: input.query.limit))
        return .ok(
            .init(
                body: .json(
                    .init(items: reply.items.map(Components.Schemas.Schedule.init), nextCursor: reply.nextCursor))))
    }

    func createSchedule(_ input: Operations.CreateSchedule.Input) async throws -> Operations.CreateSchedule.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let schedule = try await callAsCaller(
            Notify.CreateSchedule.self,
            .init(
                kind: body.kind.map(Notify.Kind.init(_:)), variables: body.variables?.additionalProperties ?? [:], at: body.at,
                timesOfDay: body.timesOfDay, daysOfWeek: body.daysOfWeek, timeZone: body.timeZone))
        return .created(.init(body: .json(.init(schedule))))
    }

    func deleteSchedule(_ input: Operations.DeleteSchedule.Input) async throws -> Operations.DeleteSchedule.Output {
        _ = try await callAsCaller(Notify.DeleteSchedule.self, .init(scheduleId: input.path.scheduleId))
        return .noContent(.init())
    }
}

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

extension Components.Schemas.NotificationItem {
    init(_ item: Notify.InboxItem) {
        self.init(
            notificationId: item.notificationId, kind: .init(value1: .init(rawValue: item.kind.rawValue), value2: item.kind.rawValue),
            title: item.title, body: item.body,
            createdAt: item.createdAt, read: item.read)
    }
}

extension Components.Schemas.NotificationPreferences {
    init(_ preferences: Notify.Preferences) {
        self.init(
            timeZone: preferences.timeZone,
            quietHours: preferences.quietHours.map { .init(start: $0.start, end: $0.end) },
            locale: preferences.locale,
            channels: preferences.channels.compactMap { channel in
                Components.Schemas.ChannelPreference.ChannelPayload(rawValue: channel.channel).map {
                    .init(kind: channel.kind.rawValue, channel: $0, enabled: channel.enabled)
                }
            })
    }
}

extension Components.Schemas.Schedule {
    init(_ schedule: Notify.Schedule) {
        self.init(
            scheduleId: schedule.scheduleId, kind: schedule.kind.rawValue,
            variables: .init(additionalProperties: schedule.variables), at: schedule.at,
            timesOfDay: schedule.timesOfDay, daysOfWeek: schedule.daysOfWeek, timeZone: schedule.timeZone,
            nextAt: schedule.nextAt)
    }
}
