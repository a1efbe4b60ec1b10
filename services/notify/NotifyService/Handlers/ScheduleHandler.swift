import Contract
import Foundation
import NotifyContract
import ServiceKit

/// The caller's own schedules: listed, created and deleted.
public struct ScheduleHandler: Sendable {
    let schedules: ScheduleStore

    public init(schedules: ScheduleStore) {
        self.schedules = schedules
    }

    /// `list_schedules`: a page of the caller's schedules.
    public func list(_ request: Notify.ListSchedules.Request, _ context: OperationContext) async throws
        -> Notify.ListSchedules.Reply
    {
        try await list(request, of: try context.userId())
    }

    /// A page of the user's schedules, oldest first, after the ``KeysetCursor`` of the previous
    /// page.
    public func list(_ request: Notify.ListSchedules.Request, of userId: UUID) async throws
        -> Notify.ListSchedules.Reply
    {
        let limit = try Notify.ListSchedules.pageSize.limit(request.limit)
        let after = try KeysetCursor.parse(request.cursor).map { (micros: $0.micros, id: $0.id) }
        let page = try await schedules.list(of: userId, after: after, limit: limit + 1)
        guard page.count > limit, let last = page.prefix(limit).last else { return .init(items: page.map(\.schedule)) }
        return .init(
            items: page.prefix(limit).map(\.schedule),
            nextCursor: KeysetCursor.text(micros: last.createdMicros, id: last.schedule.scheduleId))
    }

    /// `create_schedule`: a new schedule of the caller's.
    public func create(_ request: Notify.CreateSchedule.Request, _ context: OperationContext) async throws
        -> Notify.CreateSchedule.Reply
    {
        try await create(request, for: try context.userId())
    }

    /// A new schedule for `userId`: a kind that is neither critical nor composed, its variables,
    /// a time zone (the user's when not given) and a recurrence whose one-off time lies ahead.
    public func create(_ request: Notify.ScheduleRequest, for userId: UUID) async throws -> Notify.Schedule {
        let kindName = request.kind ?? Notify.Kind.reminder
        let kind = try NotificationCatalog.kind(kindName)
        guard !kind.critical, ScheduleStore.composedKinds[kindName] == nil else {
            throw ServiceError.invalidArgument("\(kindName) cannot be scheduled", field: "kind")
        }
        try kind.check(request.variables)
        let zoneName: String
        if let given = request.timeZone {
            zoneName = given
        } else {
            zoneName = try await schedules.notifications.settings(of: userId).timeZone
        }
        let zone = try LocalTime(zoneName)
        let times = try (request.timesOfDay ?? []).map { try TimeOfDay(parsing: $0, field: "timesOfDay") }
        let once = request.at.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        let recurrence = try Recurrence(once: once, times: times, days: Set(request.daysOfWeek ?? []))
        let now = schedules.clock.now()
        if let once, once <= now {
            throw ServiceError.invalidArgument("at must be in the future", field: "at")
        }
        let next = recurrence.next(after: now, in: zone)
        let id = UUID()
        try await schedules.insert(
            id: id, userId: userId, kind: kindName, variables: request.variables, once: once, recurrence: recurrence,
            timeZone: zoneName, next: next, now: now)
        return Notify.Schedule(
            scheduleId: id.uuidString.lowercased(), kind: kindName, variables: request.variables, at: request.at,
            timesOfDay: recurrence.times.map(\.text), daysOfWeek: recurrence.days.sorted(), timeZone: zoneName,
            nextAt: next.map(ScheduleStore.millis))
    }

    /// `delete_schedule`: removes one of the caller's schedules.
    public func delete(_ request: Notify.DeleteSchedule.Request, _ context: OperationContext) async throws -> Empty {
        try await delete(request.scheduleId, of: try context.userId())
    }

    /// Removes one of the user's schedules; `not_found` if it is not theirs.
    @discardableResult
    public func delete(_ id: String, of userId: UUID) async throws -> Empty {
        guard let scheduleId = UUID(uuidString: id) else {
            throw ServiceError.invalidArgument("scheduleId must be a UUID", field: "scheduleId")
        }
        guard try await schedules.delete(scheduleId, of: userId) else {
            throw ServiceError(.notFound, "no schedule \(id)")
        }
        return Empty()
    }
}
