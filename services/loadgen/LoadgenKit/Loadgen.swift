import Foundation

/// The `loadgen` command line: scenarios that measure the system and print the figures.
public enum Loadgen {
    static let usage = """
        loadgen: load generator and benchmarks for Backplane

        Usage: loadgen <scenario> [options]

        Scenarios:
          broker      raw MDP round trips: DEALER-ROUTER with no broker, then through the Majordomo
                      broker with 1 and 4 workers at 1 and 100 requests in flight, plus plain
                      synchronous worker loops and the async client API (all in process, over
                      loopback TCP)
          login       logins through a running gateway (--url) with N concurrent clients, next to
                      the hashing bound (cores / time of one Argon2id verification, measured in
                      the same run), and the gateway's access-token verification; see
                      `make bench-auth`, which starts the system for it
          orders      quotes, then orders, through the HTTP gateway of a running system (make up
                      SERVICES="auth orders"), sent at a fixed rate; latency from when each was due

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
                        broker-1w-100, broker-4w-1, broker-4w-100, plain-1w-100, plain-4w-100, plain-credit-4w-100,
                        async-4w-100)
          --json PATH   also write the results as JSON to PATH (every scenario)

        Options of login:
          --url URL     the gateway (default http://127.0.0.1:8080)
          --clients L   comma-separated client counts, one row each (default 1,2,4,8,16)
          --seconds N   measured seconds per row (default 5)

          --help        this text

        """

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
