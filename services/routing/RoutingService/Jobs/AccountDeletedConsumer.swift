import AuthContract
import Contract
import Foundation
import Store

/// Forgets what routing keeps of an account deleted in auth (`auth.account_deleted`): pins,
/// activity, visits, modules, feed, attendances and reminders, in the transaction that records
/// the event as handled.
public struct AccountDeletedConsumer: Sendable {
    let pins: PinStore
    let timetable: TimetableStore

    public init(pins: PinStore, timetable: TimetableStore) {
        self.pins = pins
        self.timetable = timetable
    }

    /// The consumer `routing.auth`'s handler.
    public func handle(_ event: StoredEvent, in tx: Transaction) async throws {
        let deleted = try Wire.makeDecoder().decode(Auth.AccountDeleted.self, from: event.payload)
        guard let user = UUID(uuidString: deleted.userId) else { return }
        try await pins.forget(user, in: tx)
        try await timetable.forget(user, in: tx)
    }
}
