import AuthContract
import Contract
import Foundation
import Store

/// The consumer `civic.auth`: a deleted account's bookmarks go (the only per-account data civic keeps).
public struct DeletedAccountForgetter: Sendable {
    let bookmarks: BookmarkStore

    public init(bookmarks: BookmarkStore) { self.bookmarks = bookmarks }

    /// Handles one `auth.account_deleted`, in the transaction that records it as handled.
    public func handle(_ event: StoredEvent, in tx: Transaction) async throws {
        let deleted = try Wire.makeDecoder().decode(Auth.AccountDeleted.self, from: event.payload)
        guard let user = UUID(uuidString: deleted.userId) else { return }
        try await bookmarks.forget(user, in: tx)
    }
}
