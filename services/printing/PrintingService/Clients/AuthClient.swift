import AuthContract
import Contract
import Foundation
import ServiceKit

/// The auth service, as printing asks it how an account is called (the signature of an e-card
/// whose order names no sender).
public struct AuthClient: Sendable {
    let lookup: @Sendable (_ userId: String) async throws -> String?

    /// A client answering with `lookup` (tests give their own).
    public init(_ lookup: @escaping @Sendable (_ userId: String) async throws -> String?) {
        self.lookup = lookup
    }

    /// auth's `lookup_contacts` over the broker, as a service (no actor).
    public static func overBus(_ bus: BusClient) -> AuthClient {
        AuthClient { userId in
            let reply = try await bus.call(
                Auth.LookupContacts.self, .init(userIds: [userId]),
                metadata: RequestMetadata(requestId: "printing-\(UUID().uuidString.lowercased())", actor: nil))
            return reply.contacts.first.map { $0.displayName ?? $0.username }
        }
    }

    /// The display name, else the username, of account `userId`; nil when auth knows no such account.
    public func accountName(of userId: String) async throws -> String? {
        try await lookup(userId)
    }
}
