import Contract
import Foundation
import HydrationContract
import OpenAPIRuntime
import ServiceKit

/// TapWater, answered by `hydration`: the drink log, history by local day, sync and the plan.
extension GatewayAPI {
    func listDrinks(_ input: Operations.ListDrinks.Input) async throws -> Operations.ListDrinks.Output {
        let reply = try await callAsCaller(
            Hydration.ListDrinks.self,
            .init(from: input.query.from, to: input.query.to, limit: input.query.limit, cursor: input.query.cursor))
        return .ok(
            .init(
                body: .json(.init(items: reply.items.map(Components.Schemas.Drink.init), nextCursor: reply.nextCursor)))
        )
    }

    func logDrink(_ input: Operations.LogDrink.Input) async throws -> Operations.LogDrink.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let reply = try await callAsCaller(
            Hydration.LogDrink.self,
            .init(
                uuid: body.uuid, category: body.category.rawValue, volume: body.volume.map(Hydration.VolumeInput.init),
                drankAt: body.drankAt, deviceId: body.deviceId))
        let drink = Components.Schemas.Drink(reply.drink)
        return reply.created ? .created(.init(body: .json(drink))) : .ok(.init(body: .json(drink)))
    }

    func updateDrink(_ input: Operations.UpdateDrink.Input) async throws -> Operations.UpdateDrink.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let drink = try await callAsCaller(
            Hydration.UpdateDrink.self,
            .init(
                uuid: input.path.uuid, category: body.category?.rawValue,
                volume: body.volume.map(Hydration.VolumeInput.init), drankAt: body.drankAt, deviceId: body.deviceId))
        return .ok(.init(body: .json(.init(drink))))
    }

    func deleteDrink(_ input: Operations.DeleteDrink.Input) async throws -> Operations.DeleteDrink.Output {
        _ = try await callAsCaller(Hydration.DeleteDrink.self, .init(uuid: input.path.uuid))
        return .noContent(.init())
    }

    func hydrationHistory(_ input: Operations.HydrationHistory.Input) async throws
        -> Operations.HydrationHistory.Output
    {
        let reply = try await callAsCaller(Hydration.History.self, .init(from: input.query.from, to: input.query.to))
        return .ok(
            .init(
                body: .json(
                    .init(
                        days: reply.days.map(Components.Schemas.HydrationDay.init),
                        streaks: reply.streaks.map { .init(from: $0.from, to: $0.to, days: $0.days) },
                        longestStreak: reply.longestStreak, currentStreak: reply.currentStreak))))
    }

    func syncDrinks(_ input: Operations.SyncDrinks.Input) async throws -> Operations.SyncDrinks.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let reply = try await callAsCaller(
            Hydration.Sync.self,
            .init(
                cursor: body.cursor, deviceId: body.deviceId,
                changes: body.changes.map { change in
                    Hydration.Change(
                        uuid: change.uuid, category: change.category?.rawValue,
                        volume: change.volume.map(Hydration.VolumeInput.init), drankAt: change.drankAt,
                        modifiedAt: change.modifiedAt, deleted: change.deleted)
                }, limit: body.limit))
        return .ok(
            .init(
                body: .json(
                    .init(
                        changes: reply.changes.map(Components.Schemas.SyncedChange.init), cursor: reply.cursor,
                        hasMore: reply.hasMore, applied: reply.applied))))
    }

    func getHydrationPlan(_ input: Operations.GetHydrationPlan.Input) async throws
        -> Operations.GetHydrationPlan.Output
    {
        .ok(.init(body: .json(.init(try await callAsCaller(Hydration.GetPlan.self, Empty())))))
    }

    func setHydrationPlan(_ input: Operations.SetHydrationPlan.Input) async throws
        -> Operations.SetHydrationPlan.Output
    {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let reply = try await callAsCaller(
            Hydration.SetPlan.self,
            .init(
                dailyGoal: body.dailyGoal, unit: Hydration.Unit(body.unit), remindersPerDay: body.remindersPerDay,
                wake: body.wake, sleep: body.sleep, timeZone: body.timeZone))
        return .ok(.init(body: .json(.init(reply))))
    }
}

extension Hydration.Unit {
    init(_ unit: Components.Schemas.VolumeUnit) { self = unit == .ml ? .ml : .oz }
}

extension Components.Schemas.VolumeUnit {
    init(_ unit: Hydration.Unit) { self = unit == .ml ? .ml : .oz }
}

extension Hydration.VolumeInput {
    init(_ volume: Components.Schemas.VolumeInput) { self.init(value: volume.value, unit: Hydration.Unit(volume.unit)) }
}

extension Components.Schemas.VolumeInput {
    init(_ volume: Hydration.VolumeInput) { self.init(value: volume.value, unit: .init(volume.unit)) }
}

extension Components.Schemas.Volume {
    init(_ volume: Hydration.Volume) { self.init(ml: volume.ml, oz: volume.oz) }
}

extension Components.Schemas.DrinkCategory {
    init(_ category: Hydration.Category) { self = .init(rawValue: category.rawValue) ?? .custom }
}

extension Components.Schemas.Drink {
    init(_ drink: Hydration.Drink) {
        self.init(
            uuid: drink.uuid, category: .init(drink.category), volume: .init(drink.volume), drankAt: drink.drankAt,
            localDay: drink.localDay, deviceId: drink.deviceId, modifiedAt: drink.modifiedAt,
            modifiedBy: drink.modifiedBy)
    }
}

extension Components.Schemas.SyncedChange {
    init(_ change: Hydration.SyncedChange) {
        self.init(
            uuid: change.uuid, category: .init(change.category), volume: .init(change.volume),
            exactVolume: .init(change.exactVolume), drankAt: change.drankAt, localDay: change.localDay,
            modifiedAt: change.modifiedAt, modifiedBy: change.modifiedBy, deleted: change.deleted)
    }
}

extension Components.Schemas.HydrationDay {
    init(_ day: Hydration.Day) {
        self.init(
            date: day.date, total: .init(day.total), goal: .init(day.goal), percent: day.percent, drinks: day.drinks,
            goalMet: day.goalMet)
    }
}

extension Components.Schemas.HydrationPlanReply {
    init(_ reply: Hydration.PlanReply) {
        self.init(
            plan: .init(
                dailyGoal: reply.plan.dailyGoal, unit: .init(reply.plan.unit),
                remindersPerDay: reply.plan.remindersPerDay,
                wake: reply.plan.wake, sleep: reply.plan.sleep, timeZone: reply.plan.timeZone),
            goal: .init(reply.goal), reminderTimes: reply.reminderTimes, saved: reply.saved)
    }
}
