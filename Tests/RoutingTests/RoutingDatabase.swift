import Contract
import Foundation
import Logging
import PostgresNIO
import RoutingContract
import RoutingService
import ServiceKit
import Store
import TestSupport
import ZeroMQ

/// The routing service's stores against the real PostgreSQL of `DATABASE_URL` (schemas `routing`
/// and `events`, migrated). Every test works in a week of its own, far in the future, with users
/// of its own, so tests running side by side never see each other's goals.
struct RoutingDatabase: Sendable {
    let client: PostgresClient
    let clock: ManualClock
    let goals: GoalHandler
    let goalStore: GoalStore
    let vouchers: VoucherStore
    let events: CampusEventStore
    let pins: PinStore
    let venues: VenueStore
    let timetable: TimetableHandler
    /// The publisher every part here appends its events with.
    let publisher: EventPublisher

    static let logger: Logger = {
        var logger = Logger(label: "routing-test")
        logger.logLevel = .critical
        return logger
    }()

    /// A context nobody runs: announced events queue in memory (consumers would read the log).
    static let context = Context()

    /// Runs `body` with a migrated database and fresh parts, the clock on a Wednesday of a
    /// random week between the years 2200 and 2900.
    static func with(_ body: @Sendable (RoutingDatabase) async throws -> Void) async throws {
        try await PostgresFixture.withClient(maximumConnections: 30, logger: logger) { client in
            let wednesday2200 = 7_258_291_200.0  // 2200-01-01 is a Wednesday
            let week = Double(Int.random(in: 0..<36_000))
            let clock = ManualClock(Date(timeIntervalSince1970: wednesday2200 + week * 7 * 86_400 + 43_200))
            let log = EventLog(client: client, clock: clock, logger: logger)
            try await log.migrate()
            try await Migrator(client: client, schema: "routing", logger: logger).migrate(RoutingService.migrations())
            let publisher = EventPublisher(
                log: log, producer: .routing, context: context, endpoint: "tcp://127.0.0.1:1")
            let goalStore = GoalStore(client: client, logger: logger)
            let vouchers = VoucherStore(client: client, logger: logger)
            try await body(
                RoutingDatabase(
                    client: client, clock: clock,
                    goals: GoalHandler(
                        goals: goalStore, vouchers: vouchers, transactions: Transactions(client, logger: logger),
                        events: publisher, zone: TimeZone(identifier: "Africa/Johannesburg")!, clock: clock),
                    goalStore: goalStore, vouchers: vouchers,
                    events: CampusEventStore(client: client, logger: logger),
                    pins: PinStore(client: client, logger: logger),
                    venues: VenueStore(client: client, logger: logger),
                    timetable: timetable(client, publisher: publisher, clock: clock), publisher: publisher))
        }
    }

    /// A timetable handler on `client`, in the campus zone, its feeds under `https://navup.test/v1/timetables`.
    static func timetable(_ client: PostgresClient, publisher: EventPublisher, clock: any WallClock) -> TimetableHandler
    {
        let venues = VenueStore(client: client, logger: logger)
        return TimetableHandler(
            store: TimetableStore(client: client, logger: logger), transactions: Transactions(client, logger: logger),
            venues: venues, venueCache: VenueCache(store: venues),
            campusZone: TimeZone(identifier: "Africa/Johannesburg")!, feedBaseURL: "https://navup.test/v1/timetables/",
            publisher: publisher, clock: clock, logger: logger)
    }

    /// This test's week.
    var week: CampusWeek { goals.week(containing: clock.now()) }

    /// A goal of this test's week.
    func goal(_ metric: String, target: Int64, title: String = "Walk the campus") async throws -> Routing.Goal {
        try await goalStore.create(
            .init(title: title, metric: metric, target: target, reward: "a free coffee"), week: week, id: UUID(),
            now: clock.now())
    }

    /// The payloads of the `routing.goal_completed` events logged for `goalId`.
    func completions(of goalId: String) async throws -> [Routing.GoalCompleted] {
        let rows = try await client.query(
            """
            SELECT payload::text FROM events.log
            WHERE topic = \(Routing.GoalCompleted.topic) AND payload->>'goalId' = \(goalId) ORDER BY seq
            """, logger: Self.logger)
        var events: [Routing.GoalCompleted] = []
        for try await text in rows.decode(String.self) {
            events.append(try Wire.makeDecoder().decode(Routing.GoalCompleted.self, from: Data(text.utf8)))
        }
        return events
    }
}
