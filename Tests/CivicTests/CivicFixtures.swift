import AsyncHTTPClient
import CivicContract
import CivicService
import Contract
import Foundation
import Glibc
import Logging
import PostgresNIO
import ServiceKit
import Store
import Synchronization
import TestSupport
import ZeroMQ

/// The waits a feed client would have slept, recorded instead.
final class Waits: Sendable {
    let list = Mutex<[Duration]>([])
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The Open States stand-in (`deploy/openstates-standin/standin.py`) as a process on a free port,
/// serving the generated fixture at `scale`.
final class StandinFeed: Sendable {
    let process: Process
    let port: Int
    let log: URL


    var baseURL: String { "http://127.0.0.1:\(port)" }

    init(scale: Double = 0.1, apiKey: String? = nil) async throws {
        try TestLayers.requireProcesses()
        port = try TestPorts.free()
        var environment = ["STANDIN_SCALE": "\(scale)"]
        environment["STANDIN_API_KEY"] = apiKey
        (process, log) = try await PythonStandin.start(
            "openstates-standin", port: port, environment: environment, banner: "openstates-standin on")
    }

    /// POSTs `body` to the stand-in's control API and returns the JSON answer.
    @discardableResult
    func control(_ path: String, _ body: [String: Any]) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: "\(baseURL)/_standin/\(path)")
        request.method = .POST
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let data = try await response.body.collect(upTo: 1 << 24)
        return (try JSONSerialization.jsonObject(with: Data(buffer: data)) as? [String: Any]) ?? [:]
    }

    /// The stand-in's counts (`bills`, `people`, `events`) and requests by path and status.
    func stats() async throws -> [String: Any] {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "\(baseURL)/_standin/stats"), timeout: .seconds(10))
        let data = try await response.body.collect(upTo: 1 << 24)
        return (try JSONSerialization.jsonObject(with: Data(buffer: data)) as? [String: Any]) ?? [:]
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: log)
    }

    /// Runs `body` with a stand-in, stopped afterwards whatever happens.
    static func with<T>(scale: Double = 0.1, apiKey: String? = nil, _ body: (StandinFeed) async throws -> T)
        async throws -> T
    {
        let feed = try await StandinFeed(scale: scale, apiKey: apiKey)
        do {
            let result = try await body(feed)
            feed.stop()
            return result
        } catch {
            feed.stop()
            throw error
        }
    }
}

/// Civic against the real PostgreSQL of `DATABASE_URL` (a database of its own there), its schema dropped and migrated afresh
/// for each test (the suites using it run one test at a time), operations called through its
/// `OperationRouter` with the wire's frames, as the broker would deliver them.
struct CivicDatabase: Sendable {
    let client: PostgresClient
    let clock: ManualClock
    let router: OperationRouter
    let publisher: EventPublisher

    static let logger: Logger = {
        var logger = Logger(label: "civic-test")
        logger.logLevel = .critical
        return logger
    }()

    static let context = Context()

    /// One test at a time uses the schema, across suites.
    static let turns = Turns()

    /// Runs `body` with a fresh `civic` schema, the clock at 2026-11-24T12:00:00Z, in a database
    /// of the test process's own (the system tests' civic processes use `civic` of
    /// `DATABASE_URL`), one test at a time; `atlas`: the outlines served (nil: the bundled ones).
    static func with(atlas: BoundaryHandler? = nil, _ body: @Sendable (CivicDatabase) async throws -> Void) async throws {
        await turns.take()
        defer { Task { await turns.give() } }
        try await PostgresFixture.withOwnDatabase("civic_tests", maximumConnections: 20, logger: logger) { client in
            let clock = ManualClock(Date(timeIntervalSince1970: 1_795_521_600))
            let log = EventLog(client: client, clock: clock, logger: logger)
            try await log.migrate()
            try await client.query("DROP SCHEMA IF EXISTS civic CASCADE", logger: logger)
            try await Migrator(client: client, schema: "civic", logger: logger).migrate(CivicService.migrations())
            let publisher = EventPublisher(log: log, producer: .civic, context: context, endpoint: "tcp://127.0.0.1:1")
            var router = OperationRouter(service: .civic, logger: logger, clock: clock)
            let parts = try CivicService.Parts(
                bills: BillStore(client: client, logger: logger), people: PeopleStore(client: client, logger: logger),
                meetings: MeetingStore(client: client, logger: logger),
                bookmarks: BookmarkStore(client: client, logger: logger),
                subscriptions: SubscriptionStore(client: client, logger: logger),
                pushes: PushStore(client: client, logger: logger),
                statedPositions: StatedPositionStore(client: client, logger: logger), clock: clock, logger: logger,
                boundaries: atlas)
            CivicService.register(parts, on: &router)
            try await body(CivicDatabase(client: client, clock: clock, router: router, publisher: publisher))
        }
    }

    /// An importer reading `feed`; its waits are recorded in `sleeps`, not slept.
    func importer(_ feed: StandinFeed, perPage: Int = 25, sleeps: Waits? = nil, apiKey: String? = nil)
        -> Importer
    {
        let settings = FeedSettings(baseURL: feed.baseURL, apiKey: apiKey, perPage: perPage, maxAttempts: 3)
        let client = FeedClient(http: HTTPClient.shared, settings: settings, logger: Self.logger) { duration in
            guard let sleeps else { return try await Task.sleep(for: duration) }
            sleeps.list.withLock { $0.append(duration) }
        }
        return Importer(
            transactions: Transactions(self.client, logger: Self.logger),
            runs: ImportStore(client: self.client, logger: Self.logger),
            imported: ImportedRecordStore(logger: Self.logger), feed: client, events: publisher, clock: clock,
            logger: Self.logger)
    }

    /// The importer of local-format files.
    func localImporter() -> LocalImporter {
        LocalImporter(
            transactions: Transactions(client, logger: Self.logger), imported: ImportedRecordStore(logger: Self.logger),
            positions: StatedPositionStore(client: client, logger: Self.logger), events: publisher, clock: clock,
            logger: Self.logger)
    }

    /// Calls `operation` as `user` (nil: anonymously) with `roles`.
    func call<Op: ServiceOperation>(_ operation: Op.Type, _ request: Op.Request, as user: UUID? = nil,
        roles: [String] = ["user"]) async throws -> Op.Reply
    {
        let metadata = RequestMetadata(
            requestId: "test-\(UUID().uuidString.prefix(8))",
            actor: user.map { Actor(userId: $0.uuidString.lowercased(), roles: roles) })
        let frames = try Wire.encodeRequest(operation: Op.name, metadata: metadata, payload: request)
        return try Wire.decodeReply(Op.Reply.self, from: await router.handle(frames))
    }

    /// The error `operation` answers, or nil when it succeeds.
    func error<Op: ServiceOperation>(_ operation: Op.Type, _ request: Op.Request, as user: UUID? = nil,
        roles: [String] = ["user"]) async -> ServiceError?
    {
        do {
            _ = try await call(operation, request, as: user, roles: roles)
            return nil
        } catch let error as ServiceError {
            return error
        } catch {
            return ServiceError(.internal, "\(error)")
        }
    }

    /// Runs `sql` (a statement of the test's own).
    func execute(_ sql: String) async throws {
        _ = try await client.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger)
    }

    /// One number from `sql`.
    func count(_ sql: String) async throws -> Int {
        let rows = try await client.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger)
        for try await value in rows.decode(Int64.self) { return Int(value) }
        return 0
    }

    /// `civic.bill_introduced` events whose bill is in this schema, by bill id.
    func introducedEvents() async throws -> [String: Int] {
        let rows = try await client.query(
            """
            SELECT e.payload->>'billId', count(*)::int8 FROM events.log e
            JOIN civic.bills b ON b.id::text = e.payload->>'billId'
            WHERE e.topic = 'civic.bill_introduced' GROUP BY 1
            """, logger: Self.logger)
        var found: [String: Int] = [:]
        for try await (id, count) in rows.decode((String, Int64).self) { found[id] = Int(count) }
        return found
    }
}

extension ServiceError {
    /// The field an `invalid_argument` names.
    var field: String? {
        guard case .string(let field) = details?["field"] else { return nil }
        return field
    }
}

/// A first-come, first-served turn: one holder at a time.
actor Turns {
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func take() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func give() {
        if waiting.isEmpty { held = false } else { waiting.removeFirst().resume() }
    }
}
