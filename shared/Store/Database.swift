import Logging
import PostgresNIO
import ServiceLifecycle

/// A service's PostgreSQL pool as the worker host hands it out. Stores are built with ``client``;
/// code outside `Store/` holds a `Database` to pass on, begins ``transactions``, or asks the few
/// questions the host and the admin port have of the database itself.
public struct Database: Sendable {
    /// The pool; only stores (and this module) use it.
    public let client: PostgresClient
    /// The logger the host's own queries log through.
    public let logger: Logger
    /// The most connections the pool opens.
    public let maximumConnections: Int

    public init(client: PostgresClient, maximumConnections: Int, logger: Logger) {
        self.client = client
        self.maximumConnections = maximumConnections
        self.logger = logger
    }

    /// A pool for `settings`, not yet running: run ``service`` in the process's service group.
    public init(settings: DatabaseSettings, logger: Logger) {
        let configuration = settings.clientConfiguration()
        self.init(
            client: PostgresClient(configuration: configuration, backgroundLogger: logger),
            maximumConnections: configuration.options.maximumConnections, logger: logger)
    }

    /// The pool's connection loop, to run in the process's service group.
    public var service: any Service { client }

    /// Transactions across stores.
    public var transactions: Transactions { Transactions(client, logger: logger) }

    /// The event log on this database.
    public func eventLog(clock: any WallClock) -> EventLog {
        EventLog(client: client, clock: clock, logger: logger)
    }

    /// The job queues of `schema`: every table with a job queue's columns, by name.
    public func jobQueues(schema: String, clock: any WallClock) async throws -> [(table: String, queue: JobQueue)] {
        try await JobQueue.tables(in: schema, client: client, logger: logger).map {
            ($0, JobQueue(client: client, schema: schema, table: $0, clock: clock, logger: logger))
        }
    }

    /// Applies `migrations` to `schema` (see ``Migrator``); the versions applied.
    public func migrate(schema: String, _ migrations: [Migration]) async throws -> [Int] {
        try await Migrator(client: client, schema: schema, logger: logger).migrate(migrations)
    }

    /// `"ok"` when the database answers a trivial query within `timeout`, else why not: what a
    /// readiness probe reports.
    public func check(within timeout: Duration = .seconds(2)) async -> String {
        let client = self.client
        let logger = self.logger
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { _ = try await client.fetch("SELECT 1", logger: logger) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw CancellationError()
                }
                try await group.next()
                group.cancelAll()
            }
            return "ok"
        } catch is CancellationError {
            return "no answer within \(timeout.components.seconds) s"
        } catch {
            return "\(error)"
        }
    }

    /// This process's connections by state (`active`, `idle`, `idle_in_transaction`, `other`),
    /// counted in `pg_stat_activity` by `applicationName`; the asking query's own connection is
    /// left out of `active`.
    public func connectionsByState(applicationName: String) async throws -> [String: Int] {
        let rows = try await client.fetch(
            """
            SELECT coalesce(state, ''), count(*)::int8 FROM pg_stat_activity
            WHERE application_name = \(applicationName) AND backend_type = 'client backend'
            GROUP BY 1
            """, logger: logger)
        var counts = ["active": 0, "idle": 0, "idle_in_transaction": 0, "other": 0]
        for try await (state, count) in rows.decode((String, Int64).self) {
            let key =
                switch state {
                case "active": "active"
                case "idle": "idle"
                case "idle in transaction", "idle in transaction (aborted)": "idle_in_transaction"
                default: "other"
                }
            counts[key, default: 0] += Int(count)
        }
        counts["active"] = max(0, counts["active", default: 0] - 1)
        return counts
    }
}
