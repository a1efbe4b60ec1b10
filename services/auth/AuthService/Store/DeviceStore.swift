import AuthContract
import Contract
import Foundation
import Logging
import PostgresNIO
import Store

/// Push targets of accounts (TapWater's devices table), in `auth.devices`.
public struct DeviceStore: Sendable {
    let client: PostgresClient
    let logger: Logger
    let clock: any WallClock

    public init(client: PostgresClient, logger: Logger, clock: any WallClock) {
        self.client = client
        self.logger = logger
        self.clock = clock
    }

    /// Stores `token` for `userId`, or updates it when the token is known (it moves to `userId`
    /// if another account had it: a push token belongs to one install); the device and whether
    /// it is new. The values are checked by the caller.
    public func register(
        token: String, platform: String, osVersion: String, app: String?, environment: Auth.APNsEnvironment,
        userId: UUID
    ) async throws -> Auth.RegisterDevice.Reply {
        let now = clock.now()
        do {
            let rows = try await client.fetch(
                """
                INSERT INTO auth.devices
                    (id, user_id, token, platform, os_version, app, apns_environment, created_at, updated_at)
                VALUES (\(UUID()), \(userId), \(token), \(platform), \(osVersion), \(app), \(environment.rawValue),
                    \(now), \(now))
                ON CONFLICT (token) DO UPDATE SET user_id = EXCLUDED.user_id, platform = EXCLUDED.platform,
                    os_version = EXCLUDED.os_version, app = EXCLUDED.app, apns_environment = EXCLUDED.apns_environment,
                    updated_at = EXCLUDED.updated_at
                RETURNING id, (xmax = 0) AS inserted
                """, logger: logger)
            for try await (id, inserted) in rows.decode((UUID, Bool).self) {
                let device = Auth.Device(
                    deviceId: id.uuidString.lowercased(), userId: userId.uuidString.lowercased(), token: token,
                    platform: platform, osVersion: osVersion, app: app, apnsEnvironment: environment)
                return .init(device, created: inserted)
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23503" {
            // The caller's token outlived its account (deleted since the token was issued).
            throw ServiceError(.notFound, "the account no longer exists")
        }
        throw ServiceError(.internal, "registering a device returned no row")
    }

    /// Removes device `id` of `userId`; `false` when the account has no such device.
    public func remove(_ id: UUID, userId: UUID) async throws -> Bool {
        let rows = try await client.fetch(
            "DELETE FROM auth.devices WHERE id = \(id) AND user_id = \(userId) RETURNING id", logger: logger)
        return try await rows.collect().count == 1
    }

    /// The devices of `userId`, oldest first (ties by id), after the device registered at
    /// `after` (its creation in microseconds and its id); all of them unless `limit` says otherwise.
    public func devices(
        of userId: UUID, after: (micros: Int64, id: UUID)? = nil, limit: Int = Int(Int32.max)
    ) async throws -> [Auth.Device] {
        try await pageOfDevices(of: userId, after: after, limit: limit).map(\.device)
    }

    /// ``devices(of:after:limit:)`` with the creation of each in microseconds (a page's cursor).
    func pageOfDevices(of userId: UUID, after: (micros: Int64, id: UUID)?, limit: Int) async throws
        -> [(device: Auth.Device, createdMicros: Int64)]
    {
        let rows = try await client.fetch(
            """
            SELECT id, token, platform, os_version, app, apns_environment,
                (extract(epoch FROM created_at) * 1000000)::bigint
            FROM auth.devices
            WHERE user_id = \(userId)
              AND (\(after?.micros)::bigint IS NULL
                   OR (created_at, id) > ('epoch'::timestamptz + \(after?.micros)::bigint * interval '1 microsecond',
                                         \(after?.id)::uuid))
            ORDER BY created_at, id LIMIT \(limit)
            """, logger: logger)
        var devices: [(device: Auth.Device, createdMicros: Int64)] = []
        for try await (id, token, platform, osVersion, app, environment, createdMicros) in rows.decode(
            (UUID, String, String, String, String?, String, Int64).self)
        {
            let device = Auth.Device(
                deviceId: id.uuidString.lowercased(), userId: userId.uuidString.lowercased(), token: token,
                platform: platform, osVersion: osVersion, app: app,
                apnsEnvironment: Auth.APNsEnvironment(rawValue: environment) ?? .production)
            devices.append((device, createdMicros))
        }
        return devices
    }

    /// Removes a token a push provider refused; how many rows went (0 or 1).
    public func forget(token: String) async throws -> Int {
        let rows = try await client.fetch(
            "DELETE FROM auth.devices WHERE token = \(token) RETURNING id", logger: logger)
        return try await rows.collect().count
    }
}
