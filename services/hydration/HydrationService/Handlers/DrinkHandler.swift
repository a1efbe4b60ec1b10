import Contract
import Foundation
import HydrationContract
import ServiceKit
import Store

/// The drink endpoints: log (idempotent by UUID), list, fix, delete.
public struct DrinkHandler: Sendable {
    let drinks: DrinkStore
    let clock: any WallClock

    public init(drinks: DrinkStore, clock: any WallClock) {
        self.drinks = drinks
        self.clock = clock
    }

    /// `log_drink`: the same UUID with the same content answers the stored drink; with other
    /// content (or once deleted), `conflict`.
    public func log(_ request: Hydration.DrinkDraft, _ context: OperationContext) async throws
        -> Hydration.LogDrink.Reply
    {
        let user = try context.userId()
        let record = try DrinkRules.record(request, now: clock.now().micros)
        switch try await drinks.log(record, for: user) {
        case .stored(let stored):
            return .init(stored.drink, created: true)
        case .existing(let existing) where existing.sameContent(as: record) && !existing.version.deleted:
            return .init(existing.drink, created: false)
        case .existing(let existing):
            throw ServiceError(
                .conflict,
                existing.version.deleted
                    ? "drink \(request.uuid) was deleted" : "drink \(request.uuid) was logged with other content",
                details: [
                    "field": "uuid", "reason": .string(existing.version.deleted ? "deleted" : "different_content"),
                ])
        case .missing:
            throw ServiceError(.internal, "a new drink was neither stored nor found")
        }
    }

    /// `list_drinks`: live drinks in `[from, to)`, newest first, by keyset pages.
    public func list(_ request: Hydration.ListDrinks.Request, _ context: OperationContext) async throws
        -> Hydration.ListDrinks.Reply
    {
        let user = try context.userId()
        let limit = request.limit ?? Hydration.ListDrinks.defaultLimit
        guard (1...Hydration.ListDrinks.maxLimit).contains(limit) else {
            throw ServiceError.invalidArgument("limit is 1 to \(Hydration.ListDrinks.maxLimit)", field: "limit")
        }
        let from = try request.from.map { (text) throws(ServiceError) in try LocalMoment.parse(text, field: "from") }
        let to = try request.to.map { (text) throws(ServiceError) in try LocalMoment.parse(text, field: "to") }
        if let from, let to, to.micros < from.micros {
            throw ServiceError.invalidArgument("to must not be before from", field: "to")
        }
        let before = try KeysetCursor.parse(request.cursor).map { (micros: $0.micros, id: $0.id) }
        let page = try await drinks.list(
            of: user, from: from?.micros, to: to?.micros, before: before, limit: limit + 1)
        guard page.count > limit else { return .init(items: page.map(\.drink)) }
        let last = page[limit - 1]
        return .init(
            items: page.prefix(limit).map(\.drink),
            nextCursor: KeysetCursor.text(micros: last.drankAt.micros, id: last.uuid.uuidString))
    }

    /// `update_drink`: a new size, category or time; the edit is the drink's newest version.
    public func update(_ request: Hydration.DrinkFix, _ context: OperationContext) async throws -> Hydration.Drink {
        let user = try context.userId()
        let uuid = try DrinkRules.uuid(request.uuid)
        let now = clock.now().micros
        let category = try request.category.map { (text) throws(ServiceError) in try DrinkRules.category(text) }
        let volume = try request.volume.map { (input) throws(ServiceError) in
            try DrinkVolume.parse(input, field: "volume")
        }
        let drankAt = try request.drankAt.map { (text) throws(ServiceError) in try DrinkRules.drankAt(text, now: now) }
        if let device = request.deviceId { _ = try DrinkRules.deviceId(device) }
        guard category != nil || volume != nil || drankAt != nil else {
            throw ServiceError.invalidArgument("send category, volume or drankAt", field: "category")
        }
        let outcome = try await drinks.edit(uuid, of: user, now: now) { current throws in
            var next = current
            if let category {
                next.category = category
                if volume == nil, category != current.category {
                    guard let standard = DrinkVolume.standard(category) else {
                        throw ServiceError.invalidArgument("a custom drink needs a volume", field: "volume")
                    }
                    next.volume = standard
                }
            }
            if let volume { next.volume = volume }
            if let drankAt { next.drankAt = drankAt }
            return next
        }
        guard case .stored(let stored) = outcome else {
            throw ServiceError.notFound("you have no drink \(request.uuid)")
        }
        return stored.drink
    }

    /// `delete_drink`: a tombstone, so other devices drop it when they sync.
    public func delete(_ request: Hydration.DrinkRef, _ context: OperationContext) async throws -> Empty {
        let user = try context.userId()
        let uuid = try DrinkRules.uuid(request.uuid)
        let outcome = try await drinks.edit(uuid, of: user, now: clock.now().micros, deleting: true) { $0 }
        guard case .stored = outcome else { throw ServiceError.notFound("you have no drink \(request.uuid)") }
        return Empty()
    }
}
