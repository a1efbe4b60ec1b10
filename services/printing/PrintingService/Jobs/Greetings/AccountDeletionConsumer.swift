import AuthContract
import Contract
import Foundation
import Store

/// Handles `auth.account_deleted` (consumer `printing.auth`): a deleted account's saved greetings
/// go with it.
struct AccountDeletionConsumer: Sendable {
    static let topics = [Auth.AccountDeleted.topic]

    let greetings: GreetingStore

    func handle(_ event: StoredEvent, in tx: Transaction) async throws {
        let deleted = try Wire.makeDecoder().decode(Auth.AccountDeleted.self, from: event.payload)
        guard let user = UUID(uuidString: deleted.userId) else { return }
        try await greetings.forget(user, in: tx)
    }
}
