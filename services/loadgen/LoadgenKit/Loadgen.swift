import Foundation

/// The `loadgen` command line: scenarios that measure the system and print the figures.
public enum Loadgen {
    static let usage = """
        loadgen: load generator and benchmarks for Backplane

        Usage: loadgen <scenario> [options]

        Scenarios (the apps, open loop through the gateway of a running system, e.g. make up):
          navup       N simulated students: Wi-Fi locate every 10 s, a route every 60 s, a venue
                      search every 120 s (NavUP)
          gifter      logins at a fixed rate, a share with wrong passwords aimed at one account
                      in ten, which get held (Gifter)
          postcard    journeys at a fixed rate: log in, [upload an image, preview,] quote, order
                      and pay (PostcardBuddy)
          mixed       navup, gifter and postcard at once

        Benchmarks:
          broker      raw MDP round trips: DEALER-ROUTER with no broker, then through the Majordomo
                      broker with 1 and 4 workers at 1 and 100 requests in flight, plus plain
                      synchronous worker loops, a bare MDP forwarder with no broker rules (the
                      floor for any broker) and the async client API (all in process, over
                      loopback TCP)
          login       logins through a running gateway (--url) with N concurrent clients, next to
                      the hashing bound (cores / time of one Argon2id verification, measured in
                      the same run), and the gateway's access-token verification; see
                      `make bench-auth`, which starts the system for it
          orders      quotes, then orders, through the HTTP gateway of a running system (make up
                      SERVICES="auth orders"), sent at a fixed rate; latency from when each was due

        Options of navup, gifter, postcard and mixed:
          --url URL          the gateway (default http://127.0.0.1:8080)
          --seconds N        length of the run (default 30)
          --users N          NavUP students (navup default 1000, mixed default 1000)
          --locate-every S, --route-every S, --search-every S
                             each student's periods in seconds (default 10, 60, 120)
          --login-rate N     Gifter logins per second (gifter default 20, mixed default 5)
          --wrong-share F    share of logins with a wrong password (default 0.1)
          --postcard-rate N  PostcardBuddy journeys per second (postcard default 5, mixed default 2)
          --image FILE       a JPEG to upload and preview in each postcard journey (needs printing)
          --accounts N       accounts registered for gifter and for postcard (default 40)
          --in-flight N      requests open at once at most (default 4096); one due while that
                             many are open waits, and the wait counts in its latency
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

        Options of broker:
          --seconds N   measured seconds per case (default 3; a quarter of that again is warm-up)
          --payload N   payload bytes per request (default 64)
          --slots N     requests each worker process handles at once (its MDP worker connections,
                        WORKER_CONCURRENCY of a service; default 32)
          --only TEXT   run only the cases whose label contains TEXT (raw-1, raw-100, raw-mdp-frames-100, broker-1w-1,
                        broker-1w-100, broker-4w-1, broker-4w-100, broker-io-1w-100, broker-io-4w-100 (handlers start
                        on the worker's I/O thread), plain-1w-100, plain-4w-100, plain-credit-1w-100,
                        plain-credit-4w-100, forwarder-1w-100, forwarder-4w-100, async-4w-100)
          --json PATH   also write the results as JSON to PATH (every scenario)

        Options of login:
          --url URL     the gateway (default http://127.0.0.1:8080)
          --clients L   comma-separated client counts, one row each (default 1,2,4,8,16)
          --seconds N   measured seconds per row (default 5)

          --help        this text

        """

    /// The settings of an app scenario from its options; unknown options and bad numbers are errors.
    static func appSettings(_ scenario: String, _ options: [String: String]) throws -> AppScenarios.Settings {
        let known: Set<String> = [
            "url", "seconds", "users", "locate-every", "route-every", "search-every", "login-rate", "wrong-share",
            "postcard-rate", "image", "accounts", "in-flight", "json", "acknowledged",
        ]
        if let unknown = options.keys.sorted().first(where: { !known.contains($0) }) {
            throw BenchError("--\(unknown) is not an option of \(scenario); see --help")
        }
        func number(_ name: String, _ fallback: Double) throws -> Double {
            guard let text = options[name] else { return fallback }
            guard let value = Double(text), value >= 0, value.isFinite else {
                throw BenchError("--\(name) wants a number ≥ 0, not '\(text)'")
            }
            return value
        }
        var settings = AppScenarios.Settings()
        settings.baseURL = options["url"] ?? settings.baseURL
        settings.seconds = try number("seconds", 30)
        settings.users = Int(try number("users", scenario == "navup" || scenario == "mixed" ? 1000 : 0))
        settings.locateEvery = try number("locate-every", 10)
        settings.routeEvery = try number("route-every", 60)
        settings.searchEvery = try number("search-every", 120)
        settings.loginRate = try number("login-rate", scenario == "gifter" ? 20 : scenario == "mixed" ? 5 : 0)
        settings.wrongShare = try number("wrong-share", 0.1)
        settings.postcardRate = try number("postcard-rate", scenario == "postcard" ? 5 : scenario == "mixed" ? 2 : 0)
        settings.accounts = max(1, Int(try number("accounts", 40)))
        settings.inFlight = max(1, Int(try number("in-flight", 4096)))
        settings.image = options["image"]
        settings.acknowledgedFile = options["acknowledged"]
        guard settings.seconds > 0 else { throw BenchError("--seconds must be more than 0") }
        guard settings.wrongShare <= 1 else { throw BenchError("--wrong-share is a share, 0 to 1") }
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
            case "navup", "gifter", "postcard", "mixed":
                let settings = try appSettings(scenario, options)
                let outcome = try await AppScenarios(settings: settings).run(scenario) {
                    FileHandle.standardOutput.write(Data("running: \($0)\n".utf8))
                }
                print(AppScenarios.table(outcome))
                if let path = options["json"] { try AppScenarios.json(outcome).write(to: URL(fileURLWithPath: path)) }
            case "broker":
                let bench = BrokerBench(
                    seconds: Double(options["seconds"] ?? "3") ?? 3,
                    payloadBytes: Int(options["payload"] ?? "64") ?? 64,
                    slots: Int(options["slots"] ?? "32") ?? 32)
                let results = try await bench.run(only: options["only"]) { print("running: \($0)") }
                print(Report.table(results, payloadBytes: bench.payloadBytes))
                if let path = options["json"] { try Report.json(results).write(to: URL(fileURLWithPath: path)) }
            case "login":
                let clients = (options["clients"] ?? "1,2,4,8,16").split(separator: ",").compactMap { Int($0) }
                guard !clients.isEmpty, clients.allSatisfy({ $0 > 0 }) else {
                    FileHandle.standardError.write(Data("loadgen: --clients wants e.g. 1,4,16\n".utf8))
                    return 64
                }
                let bench = LoginBench(
                    baseURL: options["url"] ?? "http://127.0.0.1:8080", clients: clients,
                    seconds: Double(options["seconds"] ?? "5") ?? 5)
                let outcome = try await bench.run { print("running: \($0)") }
                print(LoginBench.table(outcome))
                if let path = options["json"] { try LoginBench.json(outcome).write(to: URL(fileURLWithPath: path)) }
            case "orders":
                let bench = try OrdersBench(
                    url: options["url"] ?? "http://127.0.0.1:8080", rate: Double(options["rate"] ?? "200") ?? 200,
                    seconds: Double(options["seconds"] ?? "3") ?? 3,
                    inFlight: Int(options["in-flight"] ?? "256") ?? 256)
                let results = try await bench.run { print("running: \($0)") }
                print(Report.table(results, payloadBytes: nil))
                if let path = options["json"] { try Report.json(results).write(to: URL(fileURLWithPath: path)) }
            default:
                FileHandle.standardError.write(Data("loadgen: unknown scenario '\(scenario)'; see --help\n".utf8))
                return 64
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("loadgen: \(error)\n".utf8))
            return 1
        }
    }
}
