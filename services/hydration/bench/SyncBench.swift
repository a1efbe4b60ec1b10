import Contract
import Foundation
import HydrationContract
import HydrationService
import Logging
import ServiceKit
import Store
import Synchronization
import ZeroMQ

/// `hydration-bench`: TapWater's sync against the PostgreSQL of `DATABASE_URL`, through the
/// service's own operation table (decode, rules, SQL, encode; no broker, no HTTP): the server's
/// time for
///
/// - `first-sync`: a new device pulling a year of history (4,000 drinks) page by page;
/// - `incremental`: syncs carrying 5 changes in and about 5 out, sent at a fixed rate (open
///   loop: latency counts from when each sync was due).
enum SyncBench {
    static let usage = """
        hydration-bench: TapWater sync timings against DATABASE_URL (the service's operations, no HTTP)

          --drinks N     history of the first-sync case (default 4000)
          --rounds N     first syncs timed (default 20)
          --rate N       incremental syncs per second (default 500)
          --seconds N    length of the incremental run (default 20)
          --users N      users the incremental syncs spread over, two devices each (default 500)
          --reminder-users N   users with a plan and a reminder each, for the reminder case (default 100000)
          --compression N      how many times faster than real time the reminders' day runs (default 1440)
          --only CASE    first-sync, incremental or reminders (default: all three)

        """

    static let logger: Logger = {
        var logger = Logger(label: "hydration-bench")
        logger.logLevel = .error
        return logger
    }()

    static func main(_ arguments: [String]) async -> Int32 {
        var options: [String: Int] = [
            "drinks": 4_000, "rounds": 20, "rate": 500, "seconds": 20, "users": 500, "reminder-users": 100_000,
            "compression": 1_440,
        ]
        var only: String?
        var index = 0
        while index < arguments.count {
            let key = arguments[index].hasPrefix("--") ? String(arguments[index].dropFirst(2)) : ""
            if key == "only", index + 1 < arguments.count {
                only = arguments[index + 1]
                index += 2
                continue
            }
            guard options[key] != nil, index + 1 < arguments.count, let value = Int(arguments[index + 1]), value > 0
            else {
                print(usage, terminator: "")
                return arguments[index] == "--help" ? 0 : 64
            }
            options[key] = value
            index += 2
        }
        do {
            try await run(options, only: only)
            return 0
        } catch {
            FileHandle.standardError.write(Data("hydration-bench: \(error)\n".utf8))
            return 1
        }
    }

    static func run(_ options: [String: Int], only: String?) async throws {
        try await BenchDatabase.with(maximumConnections: 40, logger: logger) { client in
            let clock = SystemClock()
            let log = EventLog(client: client, clock: clock, logger: logger)
            try await log.migrate()
            try await Migrator(client: client, schema: "hydration", logger: logger).migrate(
                HydrationService.migrations())
            let publisher = EventPublisher(
                log: log, producer: .hydration, context: Context(), endpoint: "tcp://127.0.0.1:1")
            var router = OperationRouter(service: .hydration, logger: logger, clock: clock)
            HydrationService.register(
                .init(
                    drinks: DrinkStore(client: client, logger: logger),
                    plans: PlanStore(client: client, events: publisher, logger: logger), clock: clock),
                on: &router)
            let bench = Bench(router: router)
            if only == nil || only == "first-sync" {
                try await bench.firstSync(drinks: options["drinks"]!, rounds: options["rounds"]!)
            }
            if only == nil || only == "incremental" {
                try await bench.incremental(
                    rate: options["rate"]!, seconds: options["seconds"]!, users: options["users"]!)
            }
            if only == nil || only == "reminders" {
                try await ReminderBench(
                    bench: bench, store: ReminderBenchStore(client: client, logger: logger),
                    users: options["reminder-users"]!, compression: Double(options["compression"]!)
                ).run()
            }
        }
    }
}

struct Bench: Sendable {
    let router: OperationRouter

    func call<Op: ServiceOperation>(_ operation: Op.Type, _ request: Op.Request, as user: UUID) async throws -> Op.Reply
    {
        let metadata = RequestMetadata(
            requestId: "bench", actor: Actor(userId: user.uuidString.lowercased(), roles: ["user"]))
        let frames = try Wire.encodeRequest(operation: Op.name, metadata: metadata, payload: request)
        return try Wire.decodeReply(Op.Reply.self, from: await router.handle(frames))
    }

    static func iso(_ date: Date) -> String { date.formatted(.iso8601) }

    static func change(_ uuid: UUID, at drank: Date, modified: Date) -> Hydration.Change {
        Hydration.Change(
            uuid: uuid.uuidString.lowercased(), category: ["drink", "glass", "bottle"][Int.random(in: 0..<3)],
            drankAt: iso(drank), modifiedAt: iso(modified))
    }

    /// A user with a year of `drinks`, pushed by the phone; then `rounds` new devices pull them all.
    func firstSync(drinks: Int, rounds: Int) async throws {
        let user = UUID()
        let now = Date()
        let year = (0..<drinks).map { index in
            Self.change(
                UUID(), at: now.addingTimeInterval(-Double(index) * 365 * 86_400 / Double(drinks)), modified: now)
        }
        var cursor: String?
        for start in stride(from: 0, to: year.count, by: Hydration.Sync.maxChanges) {
            let batch = Array(year[start..<min(start + Hydration.Sync.maxChanges, year.count)])
            cursor = try await call(
                Hydration.Sync.self, .init(cursor: cursor, deviceId: "phone", changes: batch), as: user
            ).cursor
        }
        for limit in [Hydration.Sync.defaultLimit, drinks] {
            var times: [Double] = []
            for round in 0..<rounds {
                let started = ContinuousClock.now
                var received = 0
                var page: String?
                var pages = 0
                repeat {
                    let reply = try await call(
                        Hydration.Sync.self,
                        .init(cursor: page, deviceId: "tablet-\(limit)-\(round)", changes: [], limit: limit), as: user)
                    received += reply.changes.count
                    pages += 1
                    page = reply.hasMore ? reply.cursor : nil
                } while page != nil
                guard received == drinks else { throw ServiceError(.internal, "pulled \(received) of \(drinks)") }
                times.append(Self.ms(ContinuousClock.now - started))
                if round == 0 { print("first sync, pages of \(limit): \(pages) pages") }
            }
            times.sort()
            print(
                String(
                    format: "first sync of %d drinks, pages of %d: p50 %.1f ms, max %.1f ms (%d rounds)", drinks,
                    limit, Self.percentile(times, 0.5), times.last ?? 0, rounds))
        }
    }

    /// `rate` syncs per second for `seconds`, each a device of one of `users` pushing 5 changes
    /// and pulling what the user's other device pushed since its cursor.
    func incremental(rate: Int, seconds: Int, users: Int) async throws {
        let ids = (0..<users).map { _ in UUID() }
        let cursors = DeviceCursors()
        // Each user starts with 50 drinks, and both devices in step.
        let now = Date()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, user) in ids.enumerated() {
                group.addTask {
                    let seed = (0..<50).map {
                        Self.change(UUID(), at: now.addingTimeInterval(-Double($0) * 3_600), modified: now)
                    }
                    let reply = try await call(
                        Hydration.Sync.self, .init(cursor: nil, deviceId: "phone", changes: seed), as: user)
                    cursors.set(index * 2, reply.cursor)
                    cursors.set(index * 2 + 1, reply.cursor)
                }
                if index % 32 == 31 { try await group.waitForAll() }
            }
            try await group.waitForAll()
        }
        let total = rate * seconds
        let interval = Duration.nanoseconds(1_000_000_000 / Int64(rate))
        let start = ContinuousClock.now + .milliseconds(100)
        let latencies = Measurements()
        let pulled = Measurements()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<total {
                let due = start + interval * index
                try await Task.sleep(until: due)
                let userIndex = index % users
                let device = (index / users) % 2
                group.addTask {
                    let key = userIndex * 2 + device
                    let moment = Date()
                    let changes = (0..<5).map { _ in Self.change(UUID(), at: moment, modified: moment) }
                    let reply = try await call(
                        Hydration.Sync.self,
                        .init(cursor: cursors.get(key), deviceId: device == 0 ? "phone" : "tablet", changes: changes),
                        as: ids[userIndex])
                    latencies.add(Self.ms(ContinuousClock.now - due))
                    pulled.add(Double(reply.changes.count))
                    cursors.set(key, reply.cursor)
                }
            }
            try await group.waitForAll()
        }
        let times = latencies.sorted()
        let counts = pulled.sorted()
        let elapsed = Self.ms(ContinuousClock.now - start) / 1_000
        print(
            String(
                format:
                    "incremental syncs (5 changes in, median %.0f out) at %d/s for %d s over %d users: %d in %.1f s, p50 %.2f ms, p99 %.2f ms, max %.1f ms",
                Self.percentile(counts, 0.5), rate, seconds, users, times.count, elapsed, Self.percentile(times, 0.5),
                Self.percentile(times, 0.99), times.last ?? 0))
    }

    /// A duration in milliseconds.
    static func ms(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
    }

    static func percentile(_ sorted: [Double], _ share: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * share).rounded(.up)) - 1)]
    }
}

/// Cursors by device, shared by the syncs in flight.
final class DeviceCursors: Sendable {
    private let cursors = Mutex<[Int: String]>([:])
    func get(_ key: Int) -> String? { cursors.withLock { $0[key] } }
    func set(_ key: Int, _ cursor: String) { cursors.withLock { $0[key] = cursor } }
}

/// Measurements, shared by the syncs in flight.
final class Measurements: Sendable {
    private let values = Mutex<[Double]>([])
    func add(_ value: Double) { values.withLock { $0.append(value) } }
    func sorted() -> [Double] { values.withLock { $0.sorted() } }
}
