import ArgumentParser
import Foundation
import NIOPosix

/// The `loadgen` command line: scenarios that measure the system and print the figures.
public enum Loadgen {
    /// Runs the command line and returns the exit status: 64 for a usage error (an unknown
    /// option, a bad number), 1 for a failed run, 0 otherwise.
    public static func main(_ arguments: [String]) async -> Int32 {
        guard !arguments.isEmpty else {
            print(LoadgenCommand.helpMessage())
            return 64
        }
        do {
            var command = try LoadgenCommand.parseAsRoot(arguments)
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            return 0
        } catch let error as UsageError {
            FileHandle.standardError.write(Data("loadgen: \(error)\n".utf8))
            return 64
        } catch {
            let status = LoadgenCommand.exitCode(for: error).rawValue
            if status == 0 {
                print(LoadgenCommand.fullMessage(for: error))
            } else {
                FileHandle.standardError.write(Data("\(LoadgenCommand.fullMessage(for: error))\n".utf8))
            }
            return status
        }
    }

    /// The settings of an app scenario from its options (`["users": "500"]` for `--users 500`);
    /// unknown options and bad numbers are ``UsageError``s naming the option.
    static func appSettings(_ scenario: String, _ options: [String: String]) throws -> AppScenarios.Settings {
        let arguments = options.sorted { $0.key < $1.key }.flatMap { ["--\($0.key)", $0.value] }
        do {
            return try AppOptions.parse(arguments).settings(scenario)
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError(AppOptions.message(for: error))
        }
    }
}

/// `loadgen <scenario> [options]`.
struct LoadgenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loadgen",
        abstract: "Load generator and benchmarks for Backplane.",
        discussion: """
            The app scenarios (navup, gifter, postcard, tapwater, politimap, mixed) send open loop through the \
            gateway of a running system (make up). The benchmarks measure one part each.
            """,
        subcommands: [
            AppCommand<NavUP>.self, AppCommand<Gifter>.self, AppCommand<Postcard>.self, AppCommand<TapWater>.self,
            AppCommand<PolitiMap>.self, AppCommand<Mixed>.self, BrokerCommand.self, LoginCommand.self,
            OrdersCommand.self, GiftsCommand.self, FloodCommand<Flood>.self, FloodCommand<Stuffing>.self,
            GetCommand.self, LogLinesCommand.self, ZMTPFuzzCommand.self,
        ])
}

/// A number option's rule: finite, and more than `above` (at least 0 when `above` is nil).
func check(_ value: Double?, _ name: String, above: Double? = nil) throws {
    guard let value else { return }
    guard value.isFinite, above.map({ value > $0 }) ?? (value >= 0) else {
        let bound = above.map { "more than \(Int($0))" } ?? "≥ 0"
        throw ValidationError("--\(name) wants a number \(bound), not '\(value)'")
    }
}

/// The same for a whole number.
func check(_ value: Int?, _ name: String, above: Int? = nil) throws {
    guard let value else { return }
    guard above.map({ value > $0 }) ?? (value >= 0) else {
        let bound = above.map { "more than \($0)" } ?? "≥ 0"
        throw ValidationError("--\(name) wants a number \(bound), not '\(value)'")
    }
}

/// Writes `data` to `path` when one is given (the `--json` options).
func write(_ data: @autoclosure () throws -> Data, to path: String?) throws {
    if let path { try data().write(to: URL(fileURLWithPath: path)) }
}

// MARK: - The app scenarios

/// One app scenario: its name, what it does, and its defaults where they differ.
protocol AppScenarioName {
    static var name: String { get }
    static var abstract: String { get }
}

enum NavUP: AppScenarioName {
    static let name = "navup"
    static let abstract =
        "N simulated students: Wi-Fi locate every 10 s, a route every 60 s, a venue search every 120 s (NavUP)."
}

enum Gifter: AppScenarioName {
    static let name = "gifter"
    static let abstract =
        "Logins at a fixed rate, a share with wrong passwords aimed at one account in ten, which get held; gift journeys between friends (Gifter)."
}

enum Postcard: AppScenarioName {
    static let name = "postcard"
    static let abstract =
        "Journeys at a fixed rate: log in, [upload an image resumably (tus), fetch its 320 px copy, preview,] quote, order and pay (PostcardBuddy); the bytes per journey against the photo's size."
}

enum TapWater: AppScenarioName {
    static let name = "tapwater"
    static let abstract =
        "N simulated users: a drink logged every 45 min from the phone, a sync every 10 min from the phone and the tablet in turn (TapWater)."
}

enum PolitiMap: AppScenarioName {
    static let name = "politimap"
    static let abstract =
        "N simulated users opening PolitiMap twice a day, no account: highlights, a page of one level's bills, two bills read in full."
}

enum Mixed: AppScenarioName {
    static let name = "mixed"
    static let abstract = "navup, gifter, postcard, tapwater and politimap at once."
}

/// The options every app scenario takes; a default that depends on the scenario is nil here.
struct AppOptions: ParsableArguments {
    @Option(help: "The gateway; several, comma-separated, take the requests in turn (gateways with no balancer).")
    var url = "http://127.0.0.1:8080"
    @Option(help: "Length of the run in seconds.") var seconds: Double = 30
    @Option(help: "NavUP students (navup and mixed default 1000).") var users: Int?
    @Option(help: "Each student's Wi-Fi locate period, seconds.") var locateEvery: Double = 10
    @Option(help: "Each student's route period, seconds.") var routeEvery: Double = 60
    @Option(help: "Each student's venue search period, seconds.") var searchEvery: Double = 120
    @Option(
        help:
            "Each student's next-class period, seconds, signed in as --accounts students with sample modules (0 registers none)."
    )
    var nextClassEvery: Double = 3_600
    @Option(help: "Gifter logins per second (gifter default 20, mixed default 5).") var loginRate: Double?
    @Option(help: "Share of logins with a wrong password, 0 to 1.") var wrongShare: Double = 0.1
    @Option(
        help:
            "Gifter gift journeys per second between friends made at set-up: a catalogue search, a favourite, a gift bought for the friend (gifter default 5, mixed default 1; needs social)."
    )
    var giftRate: Double?
    @Option(help: "PostcardBuddy journeys per second (postcard default 5, mixed default 2).")
    var postcardRate: Double?
    @Option(
        help:
            "PostcardBuddy free e-cards per second, each a login and an e-card to one recipient by one of --accounts accounts with no card (mixed default 1; a 429, the daily cap, is a correct answer)."
    )
    var ecardRate: Double?
    @Option(help: "TapWater users (tapwater default 1000, mixed default 200).") var tapwaterUsers: Int?
    @Option(help: "Each TapWater user's drink period, seconds.") var drinkEvery: Double = 2_700
    @Option(help: "Each TapWater user's sync period, seconds.") var syncEvery: Double = 600
    @Option(
        help:
            "Write the UUID of every drink answered 201 or 200 to this file, one per line; a drink or sync without an answer, or with 502/503/504, is sent again as it was."
    )
    var acknowledgedDrinks: String?
    @Option(help: "PolitiMap users (politimap default 10000, mixed default 2000).") var politimapUsers: Int?
    @Option(help: "How often each PolitiMap user opens the app, seconds.") var openEvery: Double = 43_200
    @Option(help: "A JPEG to upload and preview in each postcard journey (needs printing).") var image: String?
    @Option(help: "jpeg (as the app asks) or png: the Accept of the journey's preview.") var previewType = "jpeg"
    @Option(help: "The preview's width in pixels, as a phone asks (default: none, 100 dpi).") var previewWidth: Int?
    @Option(help: "Accounts registered for gifter and postcard (gift journeys use N/4 pairs of friends).")
    var accounts = 40
    @Option(
        help:
            "Requests open at once at most; one due while that many are open waits, and the wait counts in its latency."
    )
    var inFlight = 4096
    @Option(
        help:
            "Renew each signed-in session this many seconds after it was issued, with its refresh token (default: a minute before its access token expires, as the apps do)."
    )
    var renewEvery: Double?
    @Option(help: "Also write the report as JSON to this file.") var json: String?
    @Option(
        help:
            "Write the id of every order answered 201 to this file, one per line (an order without an answer, or with 502/503/504, is sent again with the same Idempotency-Key, up to 8 times)."
    )
    var acknowledged: String?

    func validate() throws {
        try check(seconds, "seconds", above: 0)
        for (value, name) in [
            (locateEvery, "locate-every"), (routeEvery, "route-every"), (searchEvery, "search-every"),
            (nextClassEvery, "next-class-every"), (loginRate, "login-rate"), (wrongShare, "wrong-share"),
            (giftRate, "gift-rate"), (postcardRate, "postcard-rate"), (ecardRate, "ecard-rate"),
            (drinkEvery, "drink-every"), (syncEvery, "sync-every"),
        ] as [(Double?, String)] {
            try check(value, name)
        }
        for (value, name) in [
            (users, "users"), (accounts, "accounts"), (inFlight, "in-flight"), (tapwaterUsers, "tapwater-users"),
            (politimapUsers, "politimap-users"),
        ] as [(Int?, String)] {
            try check(value, name)
        }
        try check(openEvery, "open-every", above: 0)
        try check(previewWidth, "preview-width", above: 0)
        try check(renewEvery, "renew-every", above: 0)
        guard ["jpeg", "png"].contains(previewType) else { throw ValidationError("--preview-type is jpeg or png") }
        guard wrongShare <= 1 else { throw ValidationError("--wrong-share is a share, 0 to 1") }
    }

    /// The settings of `scenario`, its own defaults filled in.
    func settings(_ scenario: String) throws -> AppScenarios.Settings {
        func byScenario<T: Numeric>(_ given: T?, _ defaults: [String: T]) -> T { given ?? defaults[scenario] ?? 0 }
        var settings = AppScenarios.Settings()
        settings.baseURL = url
        settings.seconds = seconds
        settings.users = byScenario(users, ["navup": 1000, "mixed": 1000])
        settings.locateEvery = locateEvery
        settings.routeEvery = routeEvery
        settings.searchEvery = searchEvery
        settings.nextClassEvery = nextClassEvery
        settings.loginRate = byScenario(loginRate, ["gifter": 20, "mixed": 5])
        settings.wrongShare = wrongShare
        settings.giftRate = byScenario(giftRate, ["gifter": 5, "mixed": 1])
        settings.postcardRate = byScenario(postcardRate, ["postcard": 5, "mixed": 2])
        settings.ecardRate = byScenario(ecardRate, ["mixed": 1])
        settings.accounts = max(1, accounts)
        settings.inFlight = max(1, inFlight)
        settings.image = image
        settings.previewType = previewType
        settings.previewWidth = previewWidth
        settings.acknowledgedFile = acknowledged
        settings.tapwaterUsers = byScenario(tapwaterUsers, ["tapwater": 1000, "mixed": 200])
        settings.drinkEvery = drinkEvery
        settings.syncEvery = syncEvery
        settings.acknowledgedDrinksFile = acknowledgedDrinks
        settings.politimapUsers = byScenario(politimapUsers, ["politimap": 10_000, "mixed": 2_000])
        settings.openEvery = openEvery
        settings.renewEvery = renewEvery
        return settings
    }
}

/// `navup`, `gifter`, `postcard`, `tapwater`, `politimap`, `mixed`.
struct AppCommand<Scenario: AppScenarioName>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: Scenario.name, abstract: Scenario.abstract)
    }

    @OptionGroup var options: AppOptions

    func run() async throws {
        let settings = try options.settings(Scenario.name)
        // Requests are made, sent, read and tallied on the event loops of the HTTP connections
        // (no hop to the global executor and back for each), so the load generator costs the
        // machine it measures as little as it can.
        let outcome = try await withTaskExecutorPreference(EventLoopTaskExecutor(group: .singleton)) {
            try await AppScenarios(settings: settings).run(Scenario.name) {
                FileHandle.standardOutput.write(Data("running: \($0)\n".utf8))
            }
        }
        print(AppScenarios.table(outcome))
        try write(try AppScenarios.json(outcome), to: options.json)
    }
}

// MARK: - The benchmarks

struct BrokerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "broker",
        abstract: "Raw MDP round trips: DEALER-ROUTER with no broker, then through the Majordomo broker.",
        discussion: """
            With 1 and 4 workers at 1 and 100 requests in flight, the client API (all in process, over \
            loopback TCP) and the broker's rules alone in memory; with the CPU time of the broker's thread \
            per round trip.
            """)

    @Option(help: "Measured seconds per case (a quarter of that again is warm-up).") var seconds: Double = 3
    @Option(help: "Payload bytes per request.") var payload = 64
    @Option(help: "Requests each worker process handles at once (WORKER_CONCURRENCY of a service).")
    var slots = 32
    @Option(
        help:
            "Run only the cases whose label contains this (raw-1, raw-100, raw-mdp-frames-100, broker-1w-1, broker-1w-100, broker-4w-1, broker-4w-100, broker-io-1w-100, broker-io-4w-100, async-4w-100, core-rules-4w, core-rules-1w)."
    )
    var only: String?
    @Option(
        help:
            "Run the chosen cases N times, each round starting with raw-100, and report each case's median and range and its share of the raw rate within each round."
    )
    var rounds = 1
    @Option(help: "Also write the results as JSON to this file (every round).") var json: String?

    func validate() throws {
        try check(seconds, "seconds", above: 0)
        try check(payload, "payload")
        try check(slots, "slots", above: 0)
        try check(rounds, "rounds", above: 0)
    }

    func run() async throws {
        let bench = BrokerBench(seconds: seconds, payloadBytes: payload, slots: slots)
        let results = try await bench.run(only: only, rounds: rounds) { print("running: \($0)") }
        if results.count == 1 {
            print(Report.table(results[0], payloadBytes: bench.payloadBytes))
        } else {
            print(Report.rounds(results, payloadBytes: bench.payloadBytes))
        }
        try write(try Report.json(results.flatMap { $0 }), to: json)
    }
}

struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Logins through a running gateway with N concurrent clients, next to the hashing bound.",
        discussion: """
            The hashing bound is cores / time of one Argon2id verification, measured in the same run; with \
            the gateway's access-token verification. `make bench-auth` starts the system for it.
            """)

    @Option(help: "The gateway.") var url = "http://127.0.0.1:8080"
    @Option(help: "Comma-separated client counts, one row each.") var clients = "1,2,4,8,16"
    @Option(help: "Measured seconds per row.") var seconds: Double = 5
    @Option(help: "Also write the results as JSON to this file.") var json: String?

    var counts: [Int] { clients.split(separator: ",").compactMap { Int($0) } }

    func validate() throws {
        try check(seconds, "seconds", above: 0)
        let parts = clients.split(separator: ",")
        guard !parts.isEmpty, parts.allSatisfy({ (Int($0) ?? 0) > 0 }) else {
            throw ValidationError("--clients wants counts separated by commas, e.g. 1,4,16")
        }
    }

    func run() async throws {
        let outcome = try await LoginBench(baseURL: url, clients: counts, seconds: seconds).run {
            print("running: \($0)")
        }
        print(LoginBench.table(outcome))
        try write(try LoginBench.json(outcome), to: json)
    }
}

struct OrdersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orders",
        abstract: "Quotes, then orders, through the gateway of a running system, at a fixed rate.",
        discussion: "make up SERVICES=\"auth orders\"; latency from when each was due.")

    @Option(help: "The gateway.") var url = "http://127.0.0.1:8080"
    @Option(help: "Requests per second.") var rate: Double = 200
    @Option(help: "Requests that may be open at once; one due while that many are open waits, and the wait counts.")
    var inFlight = 256
    @Option(help: "Measured seconds per case.") var seconds: Double = 3
    @Option(help: "Also write the results as JSON to this file.") var json: String?

    func validate() throws {
        try check(rate, "rate", above: 0)
        try check(inFlight, "in-flight", above: 0)
        try check(seconds, "seconds", above: 0)
    }

    func run() async throws {
        let bench = try OrdersBench(url: url, rate: rate, seconds: seconds, inFlight: inFlight)
        let results = try await bench.run { print("running: \($0)") }
        print(Report.table(results, payloadBytes: nil))
        try write(try Report.json(results), to: json)
    }
}

struct GiftsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gifts",
        abstract: "Gifter gift purchases between pairs of friends made at set-up, at a fixed rate.",
        discussion: """
            POST /v1/orders, kind gift, priced by social from the sandbox catalogue, through a running system \
            with auth, orders and social (make bench-social).
            """)

    @Option(help: "The gateway.") var url = "http://127.0.0.1:8080"
    @Option(help: "Purchases per second.") var rate: Double = 100
    @Option(help: "Requests that may be open at once.") var inFlight = 256
    @Option(help: "Measured seconds.") var seconds: Double = 10
    @Option(help: "Buyers, each with a friend and a card, taken in turn.") var pairs = 10
    @Option(help: "Also write the results as JSON to this file.") var json: String?

    func validate() throws {
        try check(rate, "rate", above: 0)
        try check(inFlight, "in-flight", above: 0)
        try check(seconds, "seconds", above: 0)
        try check(pairs, "pairs", above: 0)
    }

    func run() async throws {
        let bench = try OrdersBench(url: url, rate: rate, seconds: seconds, inFlight: inFlight)
        let results = try await bench.gifts(pairs: pairs) { print("running: \($0)") }
        print(Report.table(results, payloadBytes: nil))
        try write(try Report.json(results), to: json)
    }
}

/// `flood` and `stuffing`, which share their options.
protocol FloodScenarioName {
    static var name: String { get }
    static var abstract: String { get }
}

enum Flood: FloodScenarioName {
    static let name = "flood"
    static let abstract =
        "--flooders clients behind one address post wrong logins as fast as they are answered, while other users log in at --rate per second: the others' latency, the flood's 429s and the password checks it still cost."
}

enum Stuffing: FloodScenarioName {
    static let name = "stuffing"
    static let abstract =
        "One address tries one password on --usernames usernames, 4 at a time: how many reach a password check and when the first 429 comes."
}

struct FloodCommand<Scenario: FloodScenarioName>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Scenario.name, abstract: Scenario.abstract,
            discussion: """
                The gateway must trust loadgen's address as a proxy (TRUSTED_PROXIES, as make up does for \
                loopback), so that each user has an address.
                """)
    }

    @Option(help: "The gateway.") var url = "http://127.0.0.1:8080"
    @Option(help: "Length of the flood in seconds.") var seconds: Double = 60
    @Option(help: "Clients on the one flooding address.") var flooders = 20
    @Option(help: "Other users' logins per second.") var rate: Double = 10
    @Option(help: "Accounts the other users log in to.") var accounts = 40
    @Option(help: "Usernames tried by stuffing.") var usernames = 1000

    func validate() throws {
        try check(seconds, "seconds", above: 0)
        try check(rate, "rate", above: 0)
        for (value, name) in [(flooders, "flooders"), (accounts, "accounts"), (usernames, "usernames")] {
            try check(value, name, above: 0)
        }
    }

    func run() async throws {
        var bench = FloodBench()
        bench.baseURL = url
        bench.seconds = seconds
        bench.flooders = flooders
        bench.rate = rate
        bench.accounts = accounts
        bench.usernames = usernames
        let report =
            Scenario.name == Flood.name
            ? try await bench.flood { print("running: \($0)") }
            : try await bench.stuffing { print("running: \($0)") }
        print(report)
    }
}

struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "One URL over and over with the load generator's own HTTP client.",
        discussion: """
            Closed loop (--connections, as wrk) or open loop (--rate); rate, p50/p99 and the load generator's \
            own CPU per request. LOADGEN_AUTHORIZATION, from the environment, is sent as the Authorization \
            header of every request (kept out of the command line and the output). Exit status 1 when a \
            request failed or none was answered.
            """)

    @Option(help: "What to ask for, http://host:port/path.") var url = "http://127.0.0.1:8080/healthz"
    @Option(help: "Measured seconds, after --warmup seconds not counted.") var seconds: Double = 8
    @Option(help: "Seconds of warm-up, not counted.") var warmup: Double = 1
    @Option(help: "Closed loop: N connections, each sending when its last answer is in (default 64).")
    var connections: Int?
    @Option(help: "Open loop instead: N requests per second, latency from when each was due.") var rate: Double?
    @Option(help: "Open loop: at most N requests open, so at most N connections (default 64, as wrk2 -c64).")
    var inFlight: Int?

    func validate() throws {
        try check(seconds, "seconds", above: 0)
        try check(warmup, "warmup")
        try check(connections, "connections", above: 0)
        try check(rate, "rate", above: 0)
        try check(inFlight, "in-flight", above: 0)
        guard connections == nil || rate == nil else {
            throw ValidationError("get takes --connections (closed loop) or --rate (open loop), not both")
        }
        guard rate != nil || inFlight == nil else {
            throw ValidationError("get takes --in-flight with --rate (open loop); a closed loop has --connections")
        }
    }

    func run() async throws {
        var bench = GetBench(url: url, seconds: seconds)
        if let rate {
            bench.rate = rate
            bench.inFlight = inFlight ?? 64
        } else {
            bench.connections = connections ?? 64
        }
        bench.warmup = warmup
        if let authorization = ProcessInfo.processInfo.environment["LOADGEN_AUTHORIZATION"] {
            bench.headers = [("Authorization", authorization)]
        }
        let outcome = try await withTaskExecutorPreference(EventLoopTaskExecutor(group: .singleton)) {
            try await bench.run()
        }
        print(bench.line(outcome))
        if outcome.requests == 0 || outcome.errors > 0 { throw ExitCode(1) }
    }
}

struct LogLinesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log-lines",
        abstract: "What one access-log line costs the gateway's thread.",
        discussion: """
            Through swift-log and as fields straight to the JSON handler (what the gateway does), in turn.
            """)

    @Option(help: "Lines each way per round (more than 999).") var lines = LogLineBench().lines
    @Option(help: "Rounds.") var rounds = LogLineBench().rounds

    func validate() throws {
        try check(lines, "lines", above: 999)
        try check(rounds, "rounds", above: 0)
    }

    func run() throws {
        var bench = LogLineBench()
        bench.lines = lines
        bench.rounds = rounds
        print(bench.report(bench.run()))
    }
}

struct ZMTPFuzzCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zmtp-fuzz",
        abstract: "Seeded random and mutated ZMTP streams through the broker's wire decoder.",
        discussion: """
            Cases/s, errors by kind, rules broken (none, or the exit status is 1), the most bytes one decoder \
            held, and resident memory before, during and after.
            """)

    @Option(help: "Streams to run.") var cases = ZMTPFuzzRun().cases
    @Option(help: "The seed every case derives from.") var seed = ZMTPFuzzRun().seed
    @Option(help: "Cases run on N threads at once (default: the number of cores).")
    var threads = ZMTPFuzzRun().threads
    @Option(help: "The decoders' message size limit in bytes.")
    var maxMessage = ZMTPFuzzRun().maxMessageSize
    @Option(help: "Replay case I of the seed alone: its bytes in hex and what the decoder made of them.")
    var `case`: Int?

    func validate() throws {
        try check(cases, "cases")
        try check(threads, "threads", above: 0)
        try check(maxMessage, "max-message", above: 0)
        try check(`case`, "case")
    }

    func run() async throws {
        var fuzz = ZMTPFuzzRun()
        fuzz.cases = cases
        fuzz.seed = seed
        fuzz.threads = threads
        fuzz.maxMessageSize = maxMessage
        if let replayed = `case` {
            print(fuzz.replay(replayed))
            return
        }
        let outcome = await fuzz.run()
        print(fuzz.report(outcome))
        if outcome.tally.failureCount != 0 { throw ExitCode(1) }
    }
}

/// A command line the load generator cannot run: exit status 64, as for any usage error.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
