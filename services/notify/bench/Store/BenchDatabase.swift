import Foundation
import Logging
import NotifyService
import PostgresNIO
import Store

/// The benchmark's own SQL, on a throwaway notify schema in the PostgreSQL of `DATABASE_URL`:
/// creating and dropping the schema, seeding it in bulk and counting what a run left behind.
struct BenchDatabase: Sendable {
    let client: PostgresClient
    let schema: String
    let logger: Logger

    /// Runs `body` with a client of at most `connections` connections to `DATABASE_URL`.
    static func withClient(
        connections: Int, logger: Logger, _ body: (PostgresClient) async throws -> Void
    ) async throws {
        let url = ProcessInfo.processInfo.environment["DATABASE_URL"] ?? DatabaseSettings.defaultURL
        var configuration = try DatabaseSettings(url: url).clientConfiguration()
        configuration.options.maximumConnections = connections
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await body(client)
        }
    }

    /// Drops the schema and everything in it.
    func drop() async throws {
        try await client.fetch("DROP SCHEMA \(unescaped: schema) CASCADE", logger: logger)
    }

    /// Records `submissions` in transactions of 1,000.
    func submit(_ submissions: [Submission], to store: NotificationStore) async throws {
        for start in stride(from: 0, to: submissions.count, by: 1000) {
            let chunk = Array(submissions[start..<min(submissions.count, start + 1000)])
            _ = try await client.transaction(logger: logger) { try await store.submitAll(chunk, on: $0) }
        }
    }

    /// `count` one-off reminders due evenly over the day after `start`.
    func addDailyReminders(_ count: Int, from start: Date) async throws {
        try await client.fetch(
            """
            INSERT INTO \(unescaped: schema).schedules
                (id, user_id, kind, variables, once_at, time_zone, next_at, created_at)
            SELECT gen_random_uuid(), gen_random_uuid(), 'reminder', '{"text": "Drink water"}'::jsonb, t, 'UTC',
                t, \(start)
            FROM (SELECT \(start)::timestamptz + make_interval(secs => i * 86400.0 / \(count)) AS t
                  FROM generate_series(1, \(count)) AS i) AS due
            """, logger: logger)
    }

    /// Deliveries logged as sent.
    func sentDeliveries() async throws -> Int {
        try await count("SELECT count(*)::int8 FROM \(unescaped: schema).deliveries WHERE outcome = 'sent'")
    }

    /// Notifications recorded.
    func notifications() async throws -> Int {
        try await count("SELECT count(*)::int8 FROM \(unescaped: schema).notifications")
    }

    /// The single integer a query returns.
    private func count(_ query: PostgresQuery) async throws -> Int {
        for try await value in try await client.fetch(query, logger: logger).decode(Int.self) { return value }
        return 0
    }
}
