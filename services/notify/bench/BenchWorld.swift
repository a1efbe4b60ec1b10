import Foundation
import Logging
import NotifyService
import Store

/// A notify store on a throwaway schema in the PostgreSQL of `DATABASE_URL`, dropped afterwards.
struct BenchWorld: Sendable {
    let store: NotificationStore
    let schedules: ScheduleStore
    let database: BenchDatabase
    let clock: any WallClock

    static let logger: Logger = {
        var logger = Logger(label: "notify-bench")
        logger.logLevel = .error
        return logger
    }()

    static func with(
        clock: any WallClock = SystemClock(), connections: Int = 16, _ body: (BenchWorld) async throws -> Void
    ) async throws {
        try await BenchDatabase.withClient(connections: connections, logger: logger) { client in
            let schema = "bench_notify_" + UUID().uuidString.lowercased().prefix(8)
            try await Migrator(client: client, schema: schema, logger: logger).migrate(NotifyService.migrations())
            let queue = JobQueue(client: client, schema: schema, clock: clock, logger: logger)
            let store = NotificationStore(client: client, queue: queue, clock: clock, logger: logger)
            let database = BenchDatabase(client: client, schema: schema, logger: logger)
            let world = BenchWorld(
                store: store, schedules: ScheduleStore(notifications: store, logger: logger), database: database,
                clock: clock)
            do {
                try await body(world)
            } catch {
                try? await database.drop()
                throw error
            }
            try await database.drop()
        }
    }

    /// Records `submissions` in transactions of 1,000.
    func submit(_ submissions: [Submission]) async throws {
        try await database.submit(submissions, to: store)
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
