import Foundation
import Logging
import Prometheus
import Store
import Synchronization

/// A worker's backlog for its `/metrics`, read from the database at each scrape:
///
/// - `backplane_jobs{service,queue,state}`: jobs `queued`, `running` and `dead` (the dead
///   letters) in each job table of the service's schema;
/// - `backplane_job_oldest_due_age_seconds{service,queue}`: how long the oldest due job has
///   waited (0 when none is due);
/// - `backplane_event_consumer_lag_events{service,consumer}` and
///   `backplane_event_consumer_lag_seconds{service,consumer}`: the events of a durable
///   consumer's topics it has not handled, and the age of the oldest;
/// - `backplane_db_pool_connections{service,state}`: this process's connections to PostgreSQL
///   by state (`active`, `idle`, `idle_in_transaction`, `other`), counted in
///   `pg_stat_activity` by the process's `application_name` (the scrape's own query left out),
///   and `backplane_db_pool_max_connections{service}`, the pool's limit: a pool near its limit
///   makes requests wait for a connection;
/// - `backplane_workload_scrape_errors_total{service}`: scrapes whose database reads failed (the
///   figures above then keep their last values).
public final class WorkloadMetrics: Sendable {
    let service: String
    let registry: PrometheusCollectorRegistry
    let database: Database
    let events: EventLog
    /// The `application_name` of this process's connections.
    let applicationName: String
    let clock: any WallClock
    let logger: Logger
    /// The durable consumers the service made: name and topics.
    private let consumers = Mutex<[String: [String]]>([:])

    init(
        service: String, registry: PrometheusCollectorRegistry, database: Database, events: EventLog,
        applicationName: String, clock: any WallClock, logger: Logger
    ) {
        self.service = service
        self.registry = registry
        self.database = database
        self.events = events
        self.applicationName = applicationName
        self.clock = clock
        self.logger = logger
        // Present from the first scrape, so an alert on its rate has a series to read.
        _ = scrapeErrors
    }

    private var scrapeErrors: Counter {
        registry.makeCounter(
            descriptor: .init(
                namespace: "backplane", metricName: "workload_scrape_errors", unitName: "total",
                helpText: "scrapes whose job and consumer figures could not be read"),
            labels: [("service", service)])
    }

    /// Counts `name`'s lag from now on.
    func watch(consumer name: String, topics: [String]) {
        consumers.withLock { $0[name] = topics }
    }

    /// Reads the figures and sets the gauges.
    func update() async {
        do {
            let now = clock.now()
            for (table, queue) in try await database.jobQueues(schema: service, clock: clock) {
                let depth = try await queue.depth()
                for (state, count) in [("queued", depth.queued), ("running", depth.running), ("dead", depth.dead)] {
                    gauge("jobs", "", "jobs by state; dead ones are the dead letters", [("queue", table), ("state", state)])
                        .set(Double(count))
                }
                gauge(
                    "job_oldest_due_age", "seconds", "how long the oldest due job has waited", [("queue", table)]
                ).set(depth.oldestDue.map { max(0, now.timeIntervalSince($0)) } ?? 0)
            }
            try await updatePool()
            for (name, topics) in consumers.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
                let lag = try await events.lag(consumer: name, topics: topics)
                gauge("event_consumer_lag", "events", "events of the consumer's topics not handled yet", [("consumer", name)])
                    .set(Double(lag.events))
                gauge("event_consumer_lag", "seconds", "age of the oldest event not handled yet", [("consumer", name)])
                    .set(lag.seconds(now: now))
            }
        } catch {
            scrapeErrors.increment()
            logger.warning(
                "job and consumer figures not read", metadata: ["error": "\(SafeErrorDescription.of(error))"])
        }
    }

    /// This process's connections by state, from `pg_stat_activity`.
    private func updatePool() async throws {
        gauge("db_pool_max_connections", "", "the most connections this process's pool opens", [])
            .set(Double(database.maximumConnections))
        guard !applicationName.isEmpty else { return }
        for (state, count) in try await database.connectionsByState(applicationName: applicationName) {
            gauge("db_pool_connections", "", "this process's connections to PostgreSQL by state", [("state", state)])
                .set(Double(count))
        }
    }

    private func gauge(_ name: String, _ unit: String, _ help: String, _ labels: [(String, String)]) -> Gauge {
        registry.makeGauge(
            descriptor: .init(namespace: "backplane", metricName: name, unitName: unit, helpText: help),
            labels: [("service", service)] + labels)
    }
}
