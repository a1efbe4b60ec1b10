import AuthContract
import Contract
import Foundation
import OrdersContract
import Store

/// The consumer `social.auth`: auth's events keep the directory (a changed profile, a deleted
/// account forgotten) and orders' paid orders count the cards sent to contacts.
public struct SocialEventConsumer: Sendable {
    let people: PeopleStore
    let contacts: ContactStore
    let clock: any WallClock

    public init(people: PeopleStore, contacts: ContactStore, clock: any WallClock) {
        self.people = people
        self.contacts = contacts
        self.clock = clock
    }

    /// The topics it handles.
    public static let topics = [Auth.ProfileChanged.topic, Auth.AccountDeleted.topic, Orders.Topic.paid]

    /// Applies one event to social's tables, in the transaction that records it as handled.
    public func handle(_ event: StoredEvent, in tx: Transaction) async throws {
        let decoder = Wire.makeDecoder()
        switch event.topic {
        case Auth.ProfileChanged.topic:
            let changed = try decoder.decode(Auth.ProfileChanged.self, from: event.payload)
            guard let entry = DirectoryEntry(changed) else { return }
            try await people.apply(entry, now: clock.now(), in: tx)
        case Orders.Topic.paid:
            let paid = try decoder.decode(Orders.OrderEvent.self, from: event.payload)
            try await contacts.count(paid, eventId: event.id, now: clock.now(), in: tx)
        case Auth.AccountDeleted.topic:
            let deleted = try decoder.decode(Auth.AccountDeleted.self, from: event.payload)
            guard let user = UUID(uuidString: deleted.userId) else { return }
            try await people.forget(user, in: tx)
        default:
            return
        }
    }
}
