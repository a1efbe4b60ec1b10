import AuthContract
import Contract
import Foundation
import ServiceKit

/// Push targets of accounts: registered and removed by their holders, listed for holders,
/// admins and services, looked up and forgotten by the notify service.
public struct DeviceHandler: Sendable {
    /// Where the devices are kept.
    public let store: DeviceStore

    public init(store: DeviceStore) {
        self.store = store
    }

    /// Registers `request.token` for `userId`, or updates it when the token is known (it moves to
    /// `userId` if another account had it: a push token belongs to one install).
    public func register(_ request: Auth.RegisterDevice.Request, userId: UUID) async throws
        -> Auth.RegisterDevice.Reply
    {
        let token = request.token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...4096).contains(token.utf8.count), !token.contains(where: \.isWhitespace) else {
            throw ServiceError.invalidArgument("token must be 1-4096 characters without spaces", field: "token")
        }
        let platform = request.platform.lowercased()
        guard Auth.platforms.contains(platform) else {
            throw ServiceError.invalidArgument(
                "platform must be one of \(Auth.platforms.joined(separator: ", "))", field: "platform")
        }
        let osVersion = request.osVersion.trimmingCharacters(in: .whitespaces)
        guard (1...64).contains(osVersion.count) else {
            throw ServiceError.invalidArgument("osVersion must be 1-64 characters, e.g. 17.4", field: "osVersion")
        }
        let app = request.app?.trimmingCharacters(in: .whitespaces).lowercased()
        if let app, !(1...64).contains(app.count) {
            throw ServiceError.invalidArgument("app must be 1-64 characters, e.g. tapwater", field: "app")
        }
        return try await store.register(
            token: token, platform: platform, osVersion: osVersion, app: app,
            environment: request.apnsEnvironment ?? .production, userId: userId)
    }

    /// Removes device `id` of `userId`; `not_found` when the account has no such device.
    @discardableResult
    public func remove(_ id: String, userId: UUID) async throws -> Empty {
        guard let deviceId = UUID(uuidString: id) else {
            throw ServiceError.invalidArgument("deviceId must be a UUID", field: "deviceId")
        }
        guard try await store.remove(deviceId, userId: userId) else {
            throw ServiceError(.notFound, "no device \(id) on this account")
        }
        return Empty()
    }

    /// `list_devices`: a page of the caller's devices, or of the account `request.userId` names
    /// (for services, which have no actor, and admins only).
    public func list(_ request: Auth.ListDevices.Request, _ context: OperationContext) async throws
        -> Auth.ListDevices.Reply
    {
        let owner: UUID
        if let asked = request.userId {
            if context.metadata.actor != nil { _ = try context.requireRole(Auth.Role.admin) }
            guard let id = UUID(uuidString: asked) else {
                throw ServiceError.invalidArgument("userId must be a UUID", field: "userId")
            }
            owner = id
        } else {
            owner = try context.userId()
        }
        return try await page(request, of: owner)
    }

    /// A page of the devices of `userId` for `list_devices`.
    public func page(_ request: Auth.ListDevices.Request, of userId: UUID) async throws -> Auth.ListDevices.Reply {
        let limit = try Auth.ListDevices.pageSize.limit(request.limit)
        let after = try KeysetCursor.parse(request.cursor).map { (micros: $0.micros, id: $0.id) }
        let rows = try await store.pageOfDevices(of: userId, after: after, limit: limit + 1)
        guard rows.count > limit else { return .init(items: rows.map(\.device)) }
        let last = rows[limit - 1]
        return .init(
            items: rows.prefix(limit).map(\.device),
            nextCursor: KeysetCursor.text(micros: last.createdMicros, id: last.device.deviceId))
    }

    /// `lookup_contacts` (services only): the contacts of the accounts among `request.userIds`
    /// that exist.
    public func lookupContacts(_ request: Auth.LookupContacts.Request, _ context: OperationContext) async throws
        -> Auth.LookupContacts.Reply
    {
        guard context.metadata.actor == nil else {
            throw ServiceError(.permissionDenied, "lookup_contacts is for services, not for accounts")
        }
        guard request.userIds.count <= Auth.LookupContacts.maxUserIds else {
            throw ServiceError.invalidArgument(
                "at most \(Auth.LookupContacts.maxUserIds) userIds per request", field: "userIds")
        }
        var ids: [UUID] = []
        for text in request.userIds {
            guard let id = UUID(uuidString: text) else {
                throw ServiceError.invalidArgument("userIds must be UUIDs", field: "userIds")
            }
            ids.append(id)
        }
        return .init(contacts: try await store.contacts(of: Array(Set(ids))))
    }

    /// `forget_device_token` (the notify service only): removes a token a push provider refused.
    public func forgetToken(_ request: Auth.ForgetDeviceToken.Request, _ context: OperationContext) async throws
        -> Auth.ForgetDeviceToken.Reply
    {
        guard context.metadata.actor == nil else {
            throw ServiceError(.permissionDenied, "forget_device_token is for the notify service")
        }
        return .init(removed: try await forget(token: request.token))
    }

    /// Removes a token a push provider refused; how many rows went (0 or 1).
    public func forget(token: String) async throws -> Int {
        try await store.forget(token: token)
    }
}
