import AuthContract
import Contract
import Foundation
import Logging
import NotifyService
import PostgresNIO
import Store
import Synchronization
import TestSupport
import Testing

/// A notify store on a schema of its own (so suites run in parallel) in the PostgreSQL of
/// `DATABASE_URL`, with a manual clock.
struct NotifyWorld: Sendable {
    let store: NotificationStore
    let schedules: ScheduleStore
    let clock: ManualClock
    let client: PostgresClient
    let schema: String
    /// What `create_schedule` and `delete_schedule` run, over ``schedules``.
    var scheduleHandler: ScheduleHandler { ScheduleHandler(schedules: schedules) }

    static let logger: Logger = {
        var logger = Logger(label: "notify-tests")
        logger.logLevel = .error
        return logger
    }()

    static func with(
        clock: ManualClock = ManualClock(), _ body: @Sendable (NotifyWorld) async throws -> Void
    ) async throws {
        try await PostgresFixture.withClient(maximumConnections: 12, logger: logger) { client in
            let schema = PostgresFixture.uniqueSchema("notify")
            try await Migrator(client: client, schema: schema, logger: logger).migrate(NotifyService.migrations())
            let queue = JobQueue(
                client: client, schema: schema, clock: clock, backoff: Backoff(base: 2, cap: 60), logger: logger)
            var store = NotificationStore(client: client, queue: queue, clock: clock, logger: logger)
            store.maxAttempts = 3
            let world = NotifyWorld(
                store: store, schedules: ScheduleStore(notifications: store, logger: logger), clock: clock,
                client: client, schema: schema)
            do {
                try await body(world)
            } catch {
                _ = try? await client.query("DROP SCHEMA \(unescaped: schema) CASCADE", logger: logger)
                throw error
            }
            try await client.query("DROP SCHEMA \(unescaped: schema) CASCADE", logger: logger)
        }
    }

    /// The single integer a query returns.
    func count(_ query: PostgresQuery) async throws -> Int {
        for try await value in try await client.query(query, logger: Self.logger).decode(Int.self) { return value }
        return 0
    }

    /// Delivery-log outcomes of a notification on a channel, oldest first.
    func outcomes(_ id: UUID, _ channel: String) async throws -> [String] {
        let rows = try await client.query(
            """
            SELECT outcome FROM \(unescaped: schema).deliveries WHERE notification_id = \(id) AND channel = \(channel)
            ORDER BY id
            """, logger: Self.logger)
        var outcomes: [String] = []
        for try await outcome in rows.decode(String.self) { outcomes.append(outcome) }
        return outcomes
    }
}

/// A ``Directory`` kept in memory.
final class FakeDirectory: Directory {
    let state = Mutex<(emails: [UUID: String], devices: [UUID: [Auth.Device]], forgotten: [String])>(([:], [:], []))

    func contacts(of userIds: [UUID]) async throws -> [UUID: Auth.Contact] {
        state.withLock { state in
            var found: [UUID: Auth.Contact] = [:]
            for id in userIds where state.emails[id] != nil || state.devices[id] != nil {
                found[id] = Auth.Contact(
                    userId: id.uuidString.lowercased(), username: "user", email: state.emails[id], displayName: nil,
                    devices: state.devices[id] ?? [])
            }
            return found
        }
    }
    func forget(token: String) async throws {
        state.withLock { state in
            state.forgotten.append(token)
            for (user, devices) in state.devices { state.devices[user] = devices.filter { $0.token != token } }
        }
    }
    var forgotten: [String] { state.withLock { $0.forgotten } }

    /// Adds devices of apps and APNs environments to `userId`.
    func add(_ userId: UUID, apps devices: [(token: String, platform: String, app: String?, Auth.APNsEnvironment)]) {
        state.withLock { state in
            state.devices[userId] = devices.map {
                Auth.Device(
                    deviceId: UUID().uuidString.lowercased(), userId: userId.uuidString.lowercased(), token: $0.token,
                    platform: $0.platform, osVersion: "17.4", app: $0.app, apnsEnvironment: $0.3)
            }
        }
    }

    func add(_ userId: UUID, email: String? = nil, devices: [(token: String, platform: String)] = []) {
        state.withLock { state in
            state.emails[userId] = email
            state.devices[userId] = devices.map {
                Auth.Device(
                    deviceId: UUID().uuidString.lowercased(), userId: userId.uuidString.lowercased(), token: $0.token,
                    platform: $0.platform, osVersion: "17.4", app: "tapwater")
            }
        }
    }
}
