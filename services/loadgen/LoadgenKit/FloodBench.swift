import Foundation
import Majordomo

/// `loadgen flood` and `loadgen stuffing`: what the gateway's rate limits and auth's admission
/// control do for everyone else while one address abuses the login.
///
/// - `flood`: `flooders` clients behind one address post wrong logins as fast as they get
///   answers for `seconds`, while other users (each with an address of their own) log in at
///   `rate` per second, open loop. The others' logins should all succeed quickly; the flood
///   should get 429s, and the hashes it costs should stay at its rate limit.
/// - `stuffing`: one address tries one password on `usernames` different usernames, four at a
///   time: how many guesses reach a password check, and when the first 429 comes.
struct FloodBench: Sendable {
    var baseURL = "http://127.0.0.1:8080"
    var seconds = 60.0
    var flooders = 20
    var rate = 10.0
    var accounts = 40
    var usernames = 1000

    /// The address the abuser's requests come from (one no simulated user has).
    static let abuser = 120_000

    func flood(progress: @Sendable (String) -> Void) async throws -> String {
        try await GatewayHTTP.with(baseURL: baseURL) { http in
            var settings = AppScenarios.Settings()
            settings.baseURL = baseURL
            progress("registering \(accounts) accounts")
            let names = try await AppScenarios(settings: settings).register(
                http, count: accounts, prefix: "flood", card: false
            ).map(\.name)
            let tally = Tally()
            let end = ContinuousClock.now + .seconds(seconds)
            progress("\(flooders) clients on one address flood the login for \(seconds) s; others log in at \(rate)/s")
            async let flood: Void = withTaskGroup(of: Void.self) { group in
                for client in 0..<flooders {
                    group.addTask {
                        await SimulatedClient.acting(as: Self.abuser) {
                            var attempt = 0
                            while ContinuousClock.now < end {
                                let started = ContinuousClock.now
                                let body =
                                    #"{"username": "flood-\#(client)-\#(attempt)@example.org", "password": "Guess2026x"}"#
                                let status = (try? await http.post("/v1/auth/login", body).status) ?? 0
                                tally.record(
                                    "flood (one address)", status: status, latency: .now - started,
                                    expected: [401, 429])
                                attempt += 1
                            }
                        }
                    }
                }
            }
            let password = AppScenarios.password
            let others = SteadyArrivals(rate: rate) { index in
                { due in
                    await SimulatedClient.acting(as: 1_000 + index) {
                        let body = #"{"username": "\#(names[index % names.count])", "password": "\#(password)"}"#
                        let status = (try? await http.post("/v1/auth/login", body).status) ?? 0
                        tally.record("others' logins", status: status, latency: .now - due, expected: [200])
                    }
                }
            }
            let elapsed = await OpenLoop(seconds: seconds, inFlight: 4096).run(others, tally: tally)
            await flood
            let kinds = tally.snapshot
            let outcome = AppScenarios.Outcome(
                scenario: "flood", seconds: elapsed, kinds: kinds, retries: 0, settings: settings)
            let flooded = kinds["flood (one address)"]?.statuses ?? [:]
            let checked = flooded[401, default: 0]
            return AppScenarios.table(outcome)
                + "\nflood: \(flooded[429, default: 0]) answered 429 without reaching auth; \(checked) reached a "
                + "password check (\(String(format: "%.2f", Double(checked) / elapsed))/s, the hashes the flood cost)\n"
        }
    }

    func stuffing(progress: @Sendable (String) -> Void) async throws -> String {
        try await GatewayHTTP.with(baseURL: baseURL) { http in
            progress("one address tries one password on \(usernames) usernames, 4 at a time")
            let start = ContinuousClock.now
            let results = await withTaskGroup(of: [(Duration, Int)].self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        await SimulatedClient.acting(as: Self.abuser + 1) {
                            var mine: [(Duration, Int)] = []
                            for index in stride(from: worker, to: usernames, by: 4) {
                                let body = #"{"username": "stuffed-\#(index)@example.org", "password": "Summer2026x"}"#
                                let status = (try? await http.post("/v1/auth/login", body).status) ?? 0
                                mine.append((.now - start, status))
                            }
                            return mine
                        }
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }.sorted { $0.0 < $1.0 }
            let elapsed = Double((ContinuousClock.now - start).nanoseconds) / 1e9
            let checked = results.filter { $0.1 == 401 }
            let firstRefusal = results.first { $0.1 == 429 }.map { Double($0.0.nanoseconds) / 1e9 }
            let afterFirst10 = checked.filter { $0.0 > .seconds(10) }.count
            var statuses: [Int: Int] = [:]
            for (_, status) in results { statuses[status, default: 0] += 1 }
            return """

                stuffing: \(usernames) usernames, one password, one address, in \(String(format: "%.1f", elapsed)) s
                  reached a password check (401): \(checked.count)
                  answered 429 at the gateway:    \(statuses[429, default: 0])
                  first 429 after:                \(firstRefusal.map { String(format: "%.2f s", $0) } ?? "never")
                  checks after the first 10 s:    \(afterFirst10)
                  statuses: \(statuses.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: " "))
                \(ProcessInfo.processInfo.activeProcessorCount) cores; \(Date())

                """
        }
    }
}
