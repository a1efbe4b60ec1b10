import AuthContract
import Contract
import Foundation
import PostgresNIO

extension DeviceStore {
    /// The contacts (name, e-mail, display name, devices) of the accounts among `userIds` that
    /// exist, in two queries whatever the number of ids.
    public func contacts(of userIds: [UUID]) async throws -> [Auth.Contact] {
        guard !userIds.isEmpty else { return [] }
        let deviceRows = try await client.fetch(
            """
            SELECT id, user_id, token, platform, os_version, app, apns_environment FROM auth.devices
            WHERE user_id = ANY(\(userIds)) ORDER BY created_at, id
            """, logger: logger)
        var devices: [UUID: [Auth.Device]] = [:]
        for try await (id, userId, token, platform, osVersion, app, environment) in deviceRows.decode(
            (UUID, UUID, String, String, String, String?, String).self)
        {
            devices[userId, default: []].append(
                .init(
                    deviceId: id.uuidString.lowercased(), userId: userId.uuidString.lowercased(), token: token,
                    platform: platform, osVersion: osVersion, app: app,
                    apnsEnvironment: Auth.APNsEnvironment(rawValue: environment) ?? .production))
        }
        let userRows = try await client.fetch(
            "SELECT id, username, email, display_name FROM auth.users WHERE id = ANY(\(userIds)) ORDER BY id",
            logger: logger)
        var contacts: [Auth.Contact] = []
        for try await (id, username, email, displayName) in userRows.decode((UUID, String, String?, String?).self) {
            contacts.append(
                .init(
                    userId: id.uuidString.lowercased(), username: username, email: email, displayName: displayName,
                    devices: devices[id] ?? []))
        }
        return contacts
    }
}
