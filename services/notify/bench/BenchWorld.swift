import Foundation
import Logging
import NotifyService
import PostgresNIO
import Store

/// A notify store on a throwaway schema in the PostgreSQL of `DATABASE_URL`, dropped afterwards.
struct BenchWorld: Sendable {
    let store: NotificationStore
    let schedules: ScheduleStore
    let client: PostgresClient
    let schema: String
    let clock: any WallClock

    static let logger: Logger = {
        var logger = Logger(label: "notify-bench")
        logger.logLevel = .error
        return logger
    }()

    static func with(
        clock: any WallClock = SystemClock(), connections: Int = 16, _ body: (BenchWorld) async throws -> Void
    ) async throws {
        let url = ProcessInfo.processInfo.environment["DATABASE_URL"] ?? DatabaseSettings.defaultURL
        var configuration = try DatabaseSettings(url: url).clientConfiguration()
        configuration.options.maximumConnections = connections
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let schema = "bench_notify_" + UUID().uuidString.lowercased().prefix(8)
            try await Migrator(client: client, schema: schema, logger: logger).migrate(NotifyService.migrations())
            let queue = JobQueue(client: client, schema: schema, clock: clock, logger: logger)
            let store = NotificationStore(client: client, queue: queue, clock: clock, logger: logger)
            let world = BenchWorld(
                store: store, schedules: ScheduleStore(notifications: store, logger: logger), client: client,
                schema: schema, clock: clock)
            do {
                try await body(world)
            } catch {
                _ = try? await client.fetch("DROP SCHEMA \(unescaped: schema) CASCADE", logger: logger)
                throw error
            }
            try await client.fetch("DROP SCHEMA \(unescaped: schema) CASCADE", logger: logger)
        }
    }

    /// Records `submissions` in transactions of 1,000.
    func submit(_ submissions: [Submission]) async throws {
        for start in stride(from: 0, to: submissions.count, by: 1000) {
            let chunk = Array(submissions[start..<min(submissions.count, start + 1000)])
            _ = try await client.transaction(logger: Self.logger) { try await store.submitAll(chunk, on: $0) }
        }
    }

    /// The single integer a query returns.
    func count(_ query: PostgresQuery) async throws -> Int {
        for try await value in try await client.fetch(query, logger: Self.logger).decode(Int.self) { return value }
        return 0
    }
}

/// How this executable was compiled, for the figures it prints.
var buildKind: String {
    #if DEBUG
        "debug build"
    #else
        "release build"
    #endif
}
