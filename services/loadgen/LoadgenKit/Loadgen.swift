import Foundation
import NIOPosix

/// The `loadgen` command line: scenarios that measure the system and print the figures.
public enum Loadgen {
    static let usage = """
        loadgen: load generator and benchmarks for Backplane

        Usage: loadgen <scenario> [options]

        Scenarios (the apps, open loop through the gateway of a running system, e.g. make up):
          navup       N simulated students: Wi-Fi locate every 10 s, a route every 60 s, a venue
                      search every 120 s (NavUP)
          gifter      logins at a fixed rate, a share with wrong passwords aimed at one account
                      in ten, which get held; gift journeys between friends (Gifter)
          postcard    journeys at a fixed rate: log in, [upload an image resumably (tus), fetch
                      its 320 px copy, preview,] quote, order and pay (PostcardBuddy); reports
                      the bytes sent and received per journey against the photo's size
          tapwater    N simulated users: a drink logged every 45 min from the phone, a sync
                      every 10 min from the phone and the tablet in turn (TapWater)
          politimap   N simulated users opening PolitiMap twice a day, no account: highlights,
                      a page of one level's bills, two bills read in full
          mixed       navup, gifter, postcard, tapwater and politimap at once

        Benchmarks:
          broker      raw MDP round trips: DEALER-ROUTER with no broker, then through the Majordomo
                      broker with 1 and 4 workers at 1 and 100 requests in flight, the client
                      API (all in process, over loopback TCP) and the broker's rules alone in
                      memory; with the CPU time of the broker's thread per round trip
          login       logins through a running gateway (--url) with N concurrent clients, next to
                      the hashing bound (cores / time of one Argon2id verification, measured in
                      the same run), and the gateway's access-token verification; see
                      `make bench-auth`, which starts the system for it
          orders      quotes, then orders, through the HTTP gateway of a running system (make up
                      SERVICES="auth orders"), sent at a fixed rate; latency from when each was due
          gifts       Gifter gift purchases (POST /v1/orders, kind gift, priced by social from the
                      sandbox catalogue) between pairs of friends made at set-up, at a fixed rate,
                      through a running system with auth, orders and social (make bench-social)
          flood       --flooders clients behind one address post wrong logins as fast as they are
                      answered, while other users log in at --rate per second: the others'
                      latency, the flood's 429s and the password checks it still cost
          stuffing    one address tries one password on --usernames usernames, 4 at a time: how
                      many reach a password check and when the first 429 comes
          get         one URL over and over with the load generator's own HTTP client: closed
                      loop (--connections, as wrk) or open loop (--rate); rate, p50/p99 and the
                      load generator's own CPU per request
          log-lines   what one access-log line costs the gateway's thread, through swift-log and
                      as fields straight to the JSON handler (what the gateway does), in turn
                      (--lines N each way per round, default 200000; --rounds N, default 3)
          zmtp-fuzz   seeded random and mutated ZMTP streams through the broker's wire decoder:
                      cases/s, errors by kind, rules broken (none, or the exit status is 1), the
                      most bytes one decoder held, and resident memory before, during and after

        Options of navup, gifter, postcard, tapwater, politimap and mixed:
          --url URL          the gateway (default http://127.0.0.1:8080); several, comma-separated,
                             take the requests in turn (gateways with no balancer in front)
          --seconds N        length of the run (default 30)
          --users N          NavUP students (navup default 1000, mixed default 1000)
          --locate-every S, --route-every S, --search-every S, --next-class-every S
                             each student's periods in seconds (default 10, 60, 120, 3600; the
                             next-class requests are signed in as --accounts students with sample
                             modules; --next-class-every 0 registers none)
          --login-rate N     Gifter logins per second (gifter default 20, mixed default 5)
          --wrong-share F    share of logins with a wrong password (default 0.1)
          --gift-rate N      Gifter gift journeys per second between friends made at set-up: a
                             catalogue search, a favourite, a gift bought for the friend
                             (gifter default 5, mixed default 1; needs social)
          --postcard-rate N  PostcardBuddy journeys per second (postcard default 5, mixed default 2)
          --ecard-rate N     PostcardBuddy free e-cards per second, each a login and an e-card to one
                             recipient by one of --accounts accounts with no card (postcard default
                             0, mixed default 1; a 429, the daily cap on free e-cards, is a correct
                             answer)
          --tapwater-users N TapWater users (tapwater default 1000, mixed default 200)
          --drink-every S, --sync-every S
                             each TapWater user's periods in seconds (default 2700, 600)
          --acknowledged-drinks PATH  write the UUID of every drink answered 201 or 200 (logged,
                             or carried by a sync answered 200) to PATH, one per line; a drink or
                             sync without an answer, or with 502/503/504, is sent again as it was
          --politimap-users N  PolitiMap users (politimap default 10000, mixed default 2000)
          --open-every S     how often each PolitiMap user opens the app, in seconds (default 43200)
          --image FILE       a JPEG to upload and preview in each postcard journey (needs printing)
          --preview-type T   jpeg (default, as the app asks) or png: the Accept of the journey's
                             preview, to compare the bytes a journey moves with either
          --preview-width N  the preview's width in pixels, as a phone asks (default: none, 100 dpi)
          --accounts N       accounts registered for gifter and for postcard (default 40; gift
                             journeys use N/4 pairs of friends)
          --in-flight N      requests open at once at most (default 4096); one due while that
                             many are open waits, and the wait counts in its latency
          --renew-every S    renew each signed-in session (NavUP's students, TapWater's accounts)
                             S seconds after it was issued, with its refresh token (default: a
                             minute before its access token expires, as the apps do; runs longer
                             than the token's 15 minutes renew either way); renewals count as
                             "navup token refresh" and "tapwater token refresh"
          --json PATH        also write the report as JSON
          --acknowledged PATH  write the id of every order answered 201 to PATH, one per line
                             (an order without an answer, or with 502/503/504, is sent again with
                             the same Idempotency-Key, up to 8 times, as the app would)

        Options of orders:
          --url URL     the gateway (default http://127.0.0.1:8080)
          --rate N      requests per second (default 200)
          --in-flight N requests that may be open at once (default 256); one due while
                        that many are open waits, and the wait counts in its latency
          --seconds N   measured seconds per case (default 3)

        Options of gifts:
          --url URL     the gateway (default http://127.0.0.1:8080)
          --rate N      purchases per second (default 100)
          --in-flight N requests that may be open at once (default 256)
          --seconds N   measured seconds (default 10)
          --pairs N     buyers, each with a friend and a card, taken in turn (default 10)

        Options of flood and stuffing (the gateway must trust loadgen's address as a proxy,
        TRUSTED_PROXIES, as make up does for loopback, so that each user has an address):
          --url URL        the gateway (default http://127.0.0.1:8080)
          --seconds N      length of the flood (default 60)
          --flooders N     clients on the one flooding address (default 20)
          --rate N         other users' logins per second (default 10)
          --accounts N     accounts the other users log in to (default 40)
          --usernames N    usernames tried by stuffing (default 1000)

        Options of broker:
          --seconds N   measured seconds per case (default 3; a quarter of that again is warm-up)
          --payload N   payload bytes per request (default 64)
          --slots N     requests each worker process handles at once (its MDP worker connections,
                        WORKER_CONCURRENCY of a service; default 32)
          --only TEXT   run only the cases whose label contains TEXT (raw-1, raw-100, raw-mdp-frames-100, broker-1w-1,
                        broker-1w-100, broker-4w-1, broker-4w-100, broker-io-1w-100, broker-io-4w-100 (handlers start
                        on the worker's I/O thread), async-4w-100, core-rules-4w, core-rules-1w)
          --rounds N    run the chosen cases N times (default 1), each round starting with raw-100, and
                        report each case's median and range and its share of the raw rate within each
                        round (their median); the raw rate swings between runs, so shares from one
                        round are only as steady as the machine
          --json PATH   also write the results as JSON to PATH (every scenario; every round)

        Options of zmtp-fuzz:
          --cases N     streams to run (default 1000000)
          --seed S      the seed every case derives from (default 20)
          --threads N   cases run on N threads at once (default: the number of cores)
          --max-message N  the decoders' message size limit in bytes (default 512)
          --case I      replay case I of the seed alone: its bytes in hex and what the decoder
                        made of them

        Options of get:
          --url URL         what to ask for, http://host:port/path (default http://127.0.0.1:8080/healthz)
          --seconds N       measured seconds (default 8), after --warmup seconds not counted (default 1)
          --connections N   closed loop: N connections, each sending when its last answer is in
                            (the default, 64)
          --rate N          open loop instead: N requests per second, latency from when each was due
          --in-flight N     open loop: at most N requests open, so at most N connections (default
                            64, as wrk2 -c64); a request due while N are open waits, and its wait counts
          LOADGEN_AUTHORIZATION  an Authorization header value for every request, from the
                            environment (kept out of the command line and the output)

        Options of login:
          --url URL     the gateway (default http://127.0.0.1:8080)
          --clients L   comma-separated client counts, one row each (default 1,2,4,8,16)
          --seconds N   measured seconds per row (default 5)

          --help        this text

        """

    /// The settings of an app scenario from its options; unknown options and bad numbers are errors.
    static func appSettings(_ scenario: String, _ options: [String: String]) throws -> AppScenarios.Settings {
        let options = try ScenarioOptions(
            scenario, options,
            known: [
                "url", "seconds", "users", "locate-every", "route-every", "search-every", "next-class-every", "login-rate",
                "wrong-share",
                "postcard-rate", "image", "accounts", "in-flight", "json", "acknowledged", "tapwater-users",
                "drink-every", "sync-every", "acknowledged-drinks", "politimap-users", "open-every", "gift-rate",
                "renew-every", "ecard-rate", "preview-type", "preview-width",
            ])
        var settings = AppScenarios.Settings()
        settings.baseURL = options["url"] ?? settings.baseURL
        settings.seconds = try options.number("seconds", 30, above: 0)
        settings.users = Int(try options.number("users", scenario == "navup" || scenario == "mixed" ? 1000 : 0))
        settings.locateEvery = try options.number("locate-every", 10)
        settings.routeEvery = try options.number("route-every", 60)
        settings.searchEvery = try options.number("search-every", 120)
        settings.nextClassEvery = try options.number("next-class-every", 3_600)
        settings.loginRate = try options.number("login-rate", scenario == "gifter" ? 20 : scenario == "mixed" ? 5 : 0)
        settings.wrongShare = try options.number("wrong-share", 0.1)
        settings.giftRate = try options.number("gift-rate", scenario == "gifter" ? 5 : scenario == "mixed" ? 1 : 0)
        settings.postcardRate = try options.number(
            "postcard-rate", scenario == "postcard" ? 5 : scenario == "mixed" ? 2 : 0)
        settings.ecardRate = try options.number("ecard-rate", scenario == "mixed" ? 1 : 0)
        settings.accounts = max(1, Int(try options.number("accounts", 40)))
        settings.inFlight = max(1, Int(try options.number("in-flight", 4096)))
        settings.image = options["image"]
        settings.previewType = options["preview-type"] ?? settings.previewType
        guard ["jpeg", "png"].contains(settings.previewType) else {
            throw BenchError("--preview-type is jpeg or png")
        }
        if options["preview-width"] != nil {
            settings.previewWidth = Int(try options.number("preview-width", 0, above: 0))
        }
        settings.acknowledgedFile = options["acknowledged"]
        settings.tapwaterUsers = Int(
            try options.number("tapwater-users", scenario == "tapwater" ? 1000 : scenario == "mixed" ? 200 : 0))
        settings.drinkEvery = try options.number("drink-every", 2_700)
        settings.syncEvery = try options.number("sync-every", 600)
        settings.acknowledgedDrinksFile = options["acknowledged-drinks"]
        settings.politimapUsers = Int(
            try options.number("politimap-users", scenario == "politimap" ? 10_000 : scenario == "mixed" ? 2_000 : 0))
        settings.openEvery = try options.number("open-every", 43_200, above: 0)
        settings.renewEvery = options["renew-every"] == nil ? nil : try options.number("renew-every", 0, above: 0)
        guard settings.wrongShare <= 1 else { throw UsageError("--wrong-share is a share, 0 to 1") }
        return settings
    }

    /// Runs the command line and returns the exit code.
    public static func main(_ arguments: [String]) async -> Int32 {
        guard let scenario = arguments.first, scenario != "--help", scenario != "-h" else {
            print(usage, terminator: "")
            return arguments.isEmpty ? 64 : 0
        }
        var options: [String: String] = [:]
        var index = 1
        while index < arguments.count {
            let key = arguments[index]
            guard key.hasPrefix("--"), index + 1 < arguments.count else {
                FileHandle.standardError.write(Data("loadgen: unexpected argument \(key); see --help\n".utf8))
                return 64
            }
            options[String(key.dropFirst(2))] = arguments[index + 1]
            index += 2
        }
        do {
            switch scenario {
            case "navup", "gifter", "postcard", "tapwater", "politimap", "mixed":
                let settings = try appSettings(scenario, options)
                // Requests are made, sent, read and tallied on the event loops of the HTTP
                // connections (no hop to the global executor and back for each), so the load
                // generator costs the machine it measures as little as it can.
                let outcome = try await withTaskExecutorPreference(
                    EventLoopTaskExecutor(group: .singleton)
                ) {
                    try await AppScenarios(settings: settings).run(scenario) {
                        FileHandle.standardOutput.write(Data("running: \($0)\n".utf8))
                    }
                }
                print(AppScenarios.table(outcome))
                if let path = options["json"] { try AppScenarios.json(outcome).write(to: URL(fileURLWithPath: path)) }
            case "broker":
                let options = try ScenarioOptions(
                    scenario, options,
                    known: ["seconds", "payload", "slots", "only", "json", "rounds"])
                let bench = BrokerBench(
                    seconds: try options.number("seconds", 3, above: 0),
                    payloadBytes: Int(try options.number("payload", 64)),
                    slots: Int(try options.number("slots", 32, above: 0)))
                let rounds = Int(try options.number("rounds", 1, above: 0))
                let results = try await bench.run(only: options["only"], rounds: rounds) { print("running: \($0)") }
                if rounds == 1 {
                    print(Report.table(results[0], payloadBytes: bench.payloadBytes))
                } else {
                    print(Report.rounds(results, payloadBytes: bench.payloadBytes))
                }
                if let path = options["json"] {
                    try Report.json(results.flatMap { $0 }).write(to: URL(fileURLWithPath: path))
                }
            case "login":
                let options = try ScenarioOptions(scenario, options, known: ["url", "clients", "seconds", "json"])
                let clients = (options["clients"] ?? "1,2,4,8,16").split(separator: ",").map { Int($0) }
                guard !clients.isEmpty, clients.allSatisfy({ ($0 ?? 0) > 0 }) else {
                    throw UsageError("--clients wants counts separated by commas, e.g. 1,4,16")
                }
                let bench = LoginBench(
                    baseURL: options["url"] ?? "http://127.0.0.1:8080", clients: clients.compactMap { $0 },
                    seconds: try options.number("seconds", 5, above: 0))
                let outcome = try await bench.run { print("running: \($0)") }
                print(LoginBench.table(outcome))
                if let path = options["json"] { try LoginBench.json(outcome).write(to: URL(fileURLWithPath: path)) }
            case "orders":
                let options = try ScenarioOptions(
                    scenario, options, known: ["url", "rate", "seconds", "in-flight", "json"])
                let bench = try OrdersBench(
                    url: options["url"] ?? "http://127.0.0.1:8080", rate: try options.number("rate", 200, above: 0),
                    seconds: try options.number("seconds", 3, above: 0),
                    inFlight: Int(try options.number("in-flight", 256, above: 0)))
                let results = try await bench.run { print("running: \($0)") }
                print(Report.table(results, payloadBytes: nil))
                if let path = options["json"] { try Report.json(results).write(to: URL(fileURLWithPath: path)) }
            case "gifts":
                let options = try ScenarioOptions(
                    scenario, options, known: ["url", "rate", "seconds", "in-flight", "pairs", "json"])
                let bench = try OrdersBench(
                    url: options["url"] ?? "http://127.0.0.1:8080", rate: try options.number("rate", 100, above: 0),
                    seconds: try options.number("seconds", 10, above: 0),
                    inFlight: Int(try options.number("in-flight", 256, above: 0)))
                let results = try await bench.gifts(pairs: Int(try options.number("pairs", 10, above: 0))) {
                    print("running: \($0)")
                }
                print(Report.table(results, payloadBytes: nil))
                if let path = options["json"] { try Report.json(results).write(to: URL(fileURLWithPath: path)) }
            case "flood", "stuffing":
                let options = try ScenarioOptions(
                    scenario, options, known: ["url", "seconds", "flooders", "rate", "accounts", "usernames"])
                var bench = FloodBench()
                bench.baseURL = options["url"] ?? bench.baseURL
                bench.seconds = try options.number("seconds", bench.seconds, above: 0)
                bench.flooders = Int(try options.number("flooders", Double(bench.flooders), above: 0))
                bench.rate = try options.number("rate", bench.rate, above: 0)
                bench.accounts = Int(try options.number("accounts", Double(bench.accounts), above: 0))
                bench.usernames = Int(try options.number("usernames", Double(bench.usernames), above: 0))
                let report =
                    scenario == "flood"
                    ? try await bench.flood { print("running: \($0)") }
                    : try await bench.stuffing { print("running: \($0)") }
                print(report)
            case "get":
                let options = try ScenarioOptions(
                    scenario, options, known: ["url", "seconds", "connections", "rate", "in-flight", "warmup"])
                guard options["connections"] == nil || options["rate"] == nil else {
                    throw UsageError("get takes --connections (closed loop) or --rate (open loop), not both")
                }
                var bench = GetBench(
                    url: options["url"] ?? "http://127.0.0.1:8080/healthz",
                    seconds: try options.number("seconds", 8, above: 0))
                if options["rate"] != nil {
                    bench.rate = try options.number("rate", 0, above: 0)
                    bench.inFlight = Int(try options.number("in-flight", 64, above: 0))
                } else {
                    guard options["in-flight"] == nil else {
                        throw UsageError("get takes --in-flight with --rate (open loop); a closed loop has --connections")
                    }
                    bench.connections = Int(try options.number("connections", 64, above: 0))
                }
                bench.warmup = try options.number("warmup", 1)
                if let authorization = ProcessInfo.processInfo.environment["LOADGEN_AUTHORIZATION"] {
                    bench.headers = [("Authorization", authorization)]
                }
                let outcome = try await withTaskExecutorPreference(EventLoopTaskExecutor(group: .singleton)) {
                    try await bench.run()
                }
                print(bench.line(outcome))
                return outcome.requests > 0 && outcome.errors == 0 ? 0 : 1
            case "log-lines":
                let options = try ScenarioOptions(scenario, options, known: ["lines", "rounds"])
                var bench = LogLineBench()
                bench.lines = Int(try options.number("lines", Double(bench.lines), above: 999))
                bench.rounds = Int(try options.number("rounds", Double(bench.rounds), above: 0))
                print(bench.report(bench.run()))
            case "zmtp-fuzz":
                let options = try ScenarioOptions(
                    scenario, options, known: ["cases", "seed", "threads", "max-message", "case"])
                var fuzz = ZMTPFuzzRun()
                fuzz.cases = Int(try options.number("cases", Double(fuzz.cases)))
                fuzz.seed = UInt64(try options.number("seed", Double(fuzz.seed)))
                fuzz.threads = Int(try options.number("threads", Double(fuzz.threads), above: 0))
                fuzz.maxMessageSize = Int(try options.number("max-message", Double(fuzz.maxMessageSize), above: 0))
                if options["case"] != nil {
                    print(fuzz.replay(Int(try options.number("case", 0))))
                    return 0
                }
                let outcome = await fuzz.run()
                print(fuzz.report(outcome))
                return outcome.tally.failureCount == 0 ? 0 : 1
            default:
                FileHandle.standardError.write(Data("loadgen: unknown scenario '\(scenario)'; see --help\n".utf8))
                return 64
            }
            return 0
        } catch let error as UsageError {
            FileHandle.standardError.write(Data("loadgen: \(error)\n".utf8))
            return 64
        } catch {
            FileHandle.standardError.write(Data("loadgen: \(error)\n".utf8))
            return 1
        }
    }
}

/// A scenario's `--name value` options: a name the scenario does not know is an error, and so is a
/// number that is not one.
struct ScenarioOptions {
    private let values: [String: String]

    init(_ scenario: String, _ values: [String: String], known: Set<String>) throws {
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            throw UsageError("--\(unknown) is not an option of \(scenario); see --help")
        }
        self.values = values
    }

    subscript(name: String) -> String? { values[name] }

    /// The option's number, `fallback` when it is not given; it must be finite and more than
    /// `above` (at least 0 when `above` is nil).
    func number(_ name: String, _ fallback: Double, above: Double? = nil) throws -> Double {
        guard let text = values[name] else { return fallback }
        guard let value = Double(text), value.isFinite, above.map({ value > $0 }) ?? (value >= 0) else {
            let bound = above.map { "more than \(Int($0))" } ?? "≥ 0"
            throw UsageError("--\(name) wants a number \(bound), not '\(text)'")
        }
        return value
    }

    /// The option as one of `T`'s cases, `fallback` when it is not given.
    func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ fallback: T) throws -> T
    where T.RawValue == String {
        guard let text = values[name] else { return fallback }
        guard let value = T(rawValue: text) else {
            let names = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError("--\(name) wants one of \(names), not '\(text)'")
        }
        return value
    }
}

/// A command line the load generator cannot run: exit status 64, as for any usage error.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
