import Contract
import Foundation
import Logging
import RoutingContract
import RoutingService
import ServiceKit
import Store

/// The timetable half of `routing-bench` (needs `DATABASE_URL`; migrates the `routing` schema
/// there): the sample campus and sample timetable (imported, idempotently), `students` students of four sample modules
/// each, then the service time of `GET /v1/me/timetable` for a week and of "take me to my next
/// class" (the targets: p99 < 10 ms and < 2 ms) right after a timetable change, for a
/// student's first request and repeated, each measured around the call the
/// operation's handler makes (``TimetableHandler``), so without the broker hop and JSON. The clock
/// is set to a term Wednesday at 08:00 in Johannesburg.
enum TimetableBenchmark {
    public static func run(students: Int = 2_000, queries: Int = 5_000) async throws {
        var logger = Logger(label: "routing-bench")
        logger.logLevel = .error
        try await BenchDatabase.with(logger: logger) { client in
            let clock = ManualClock(try Date("2026-03-04T06:00:00Z", strategy: .iso8601))
            try await EventLog(client: client, clock: clock, logger: logger).migrate()
            try await Migrator(client: client, schema: "routing", logger: logger).migrate(RoutingService.migrations())
            let zone = TimeZone(identifier: "Africa/Johannesburg")!
            let venues = VenueStore(client: client, logger: logger)
            let venueCache = VenueCache(store: venues)
            let state = CampusState()
            let loader = CampusLoader(
                store: MapStore(client: client, logger: logger), state: state, crowdModel: CrowdModel(),
                cost: RouteCost(),
                clock: clock, logger: logger, refreshInterval: .seconds(3600), venues: venueCache)
            try await loader.start { try RoutingService.sampleCampus() }
            let timetable = TimetableHandler(
                store: TimetableStore(client: client, logger: logger),
                transactions: Transactions(client, logger: logger),
                venues: venues, venueCache: venueCache, campusZone: zone,
                feedBaseURL: "https://navup.bench/v1/timetables", publisher: nil, clock: clock, logger: logger)
            // Idempotent: a database that has the sample already is left as it is.
            _ = try await timetable.importTimetable(
                .init(format: "csv", text: try RoutingService.sampleTimetable()), now: clock.now())
            // The sample's modules only (a database used for tests holds others too).
            let entries = try TimetableCSV(campusZone: zone).parse(try RoutingService.sampleTimetable()).entries
            let sample = Set(entries.map(\.moduleCode))
            let halls = Set(entries.map(\.location))
            let codes = try await timetable.store.modules().map(\.code).filter { sample.contains($0) }
            var random = SeededRandom(seed: 31)
            let setupStart = ContinuousClock.now
            let users = (0..<students).map { _ in UUID() }
            for user in users {
                var mine = Set<String>()
                while mine.count < min(4, codes.count) { mine.insert(codes[Int(random.next() % UInt64(codes.count))]) }
                _ = try await timetable.setModules(Array(mine), user: user)
            }
            // Students start from the sample's class venues (a test database holds venues of its own).
            let places = try await venues.all().filter { halls.contains($0.name) }
            print(
                "timetable: \(codes.count) modules, \(students) students of 4 modules each (enrolled in "
                    + RouteBenchmark.format(ContinuousClock.now - setupStart) + ")")

            var week: [Duration] = []
            var items = 0
            for _ in 0..<queries {
                let user = users[Int(random.next() % UInt64(users.count))]
                let begin = ContinuousClock.now
                let reply = try await timetable.timetable(user: user, from: nil, to: nil, now: clock.now())
                week.append(ContinuousClock.now - begin)
                items += reply.items.count
            }
            print(
                "  GET /v1/me/timetable (a week): " + RouteBenchmark.summary(week)
                    + "; mean \(items / max(1, queries)) classes (target p99 < 10 ms)")

            let navigator = Navigator(state: state)
            let passes = [
                (name: "after a timetable change (both memos empty: two queries)", cold: true),
                (name: "first of a student (one query, the modules from memory)", cold: false),
                (name: "repeated (from the student's memo)", cold: false),
            ]
            for pass in passes {
                var samples: [Duration] = []
                var routed = 0
                for index in 0..<min(queries, users.count) {
                    let user = users[index]
                    let venue = places[Int(random.next() % UInt64(places.count))]
                    let from = Routing.Point(lat: venue.lat, lon: venue.lon, level: venue.level)
                    // What an import does to every replica's memory; not timed.
                    if pass.cold { timetable.forgetTimetable() }
                    let begin = ContinuousClock.now
                    do {
                        _ = try await timetable.nextClass(
                            user: user, from: from, profile: .fastest, navigator: navigator, now: clock.now())
                        routed += 1
                    } catch let error as ServiceError where error.code == .notFound || error.code == .invalidArgument {
                        // No class in the next 12 hours, or no route: timed all the same.
                    }
                    samples.append(ContinuousClock.now - begin)
                }
                print(
                    "  next-class, \(pass.name): " + RouteBenchmark.summary(samples)
                        + "; \(routed) routed (target p99 < 2 ms)")
                if pass.cold { timetable.forgetTimetable() }
            }
        }
    }
}
