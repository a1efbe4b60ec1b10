import Contract
import Foundation
import HydrationContract
import ServiceKit
import Store

/// `sync`: a device's offline changes in, through the merge; other devices' changes out.
public struct SyncHandler: Sendable {
    let drinks: DrinkStore
    let clock: any WallClock

    public init(drinks: DrinkStore, clock: any WallClock) {
        self.drinks = drinks
        self.clock = clock
    }

    public func sync(_ request: Hydration.Sync.Request, _ context: OperationContext) async throws
        -> Hydration.Sync.Reply
    {
        let user = try context.userId()
        let device = try DrinkRules.deviceId(request.deviceId)
        guard request.changes.count <= Hydration.Sync.maxChanges else {
            throw ServiceError.invalidArgument(
                "at most \(Hydration.Sync.maxChanges) changes per sync", field: "changes")
        }
        let limit = request.limit ?? Hydration.Sync.defaultLimit
        guard (1...Hydration.Sync.maxLimit).contains(limit) else {
            throw ServiceError.invalidArgument("limit is 1 to \(Hydration.Sync.maxLimit)", field: "limit")
        }
        let after = try SyncCursor.parse(request.cursor)
        let now = clock.now().micros
        var records: [DrinkRecord] = []
        records.reserveCapacity(request.changes.count)
        for (index, change) in request.changes.enumerated() {
            records.append(try DrinkRules.record(change, by: device, now: now, field: "changes[\(index)]"))
        }
        let applied = try await drinks.apply(records, for: user)
        let fetched = try await drinks.changes(of: user, after: after, limit: limit + 1)
        let page = Array(fetched.prefix(limit))
        // A device that has synced before holds its own winning changes already; a first sync
        // (no cursor) gets everything, its own earlier changes included. A change of the batch
        // that lost gets the winner back even when the device's cursor is past it, so a device
        // whose clock lags cannot keep a version the server refused.
        var changes = request.cursor == nil ? page : page.filter { $0.version.deviceId != device }
        let inPage = Set(page.map(\.uuid))
        let beaten = try await drinks.drinks(applied.lost.filter { !inPage.contains($0) }, of: user)
        changes += beaten.filter { $0.version.deviceId != device }
        return .init(
            changes: changes.map(\.change), cursor: SyncCursor.text(page.last?.seq ?? after),
            hasMore: fetched.count > limit, applied: applied.won)
    }
}
