import AuthContract
import Contract
import Foundation
import ServiceKit

/// What notify asks auth about users: how to reach them (e-mail, devices), and which push tokens
/// to forget.
public protocol Directory: Sendable {
    /// The contacts of those of `userIds` whose accounts exist, by user id.
    func contacts(of userIds: [UUID]) async throws -> [UUID: Auth.Contact]
    /// Tells auth that a provider rejected `token`.
    func forget(token: String) async throws
}

/// The ``Directory`` over the broker: auth's service-only `lookup_contacts` (one call per
/// ``Auth/LookupContacts/maxUserIds`` users) and `forget_device_token`, both without an actor.
public struct AuthDirectoryClient: Directory {
    let bus: BusClient

    /// Asks auth through `bus`.
    public init(bus: BusClient) { self.bus = bus }

    func metadata() -> RequestMetadata {
        RequestMetadata(requestId: "notify-\(UUID().uuidString.lowercased())", actor: nil)
    }

    public func contacts(of userIds: [UUID]) async throws -> [UUID: Auth.Contact] {
        let unique = Array(Set(userIds))
        var found: [UUID: Auth.Contact] = [:]
        for start in stride(from: 0, to: unique.count, by: Auth.LookupContacts.maxUserIds) {
            let chunk = unique[start..<min(unique.count, start + Auth.LookupContacts.maxUserIds)]
            let reply = try await bus.call(
                Auth.LookupContacts.self, .init(userIds: chunk.map { $0.uuidString.lowercased() }),
                metadata: metadata())
            for contact in reply.contacts {
                if let id = UUID(uuidString: contact.userId) { found[id] = contact }
            }
        }
        return found
    }

    public func forget(token: String) async throws {
        _ = try await bus.call(Auth.ForgetDeviceToken.self, .init(token: token), metadata: metadata())
    }
}
