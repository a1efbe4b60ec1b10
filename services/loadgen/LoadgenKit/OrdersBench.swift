import Foundation
import Majordomo

/// Quotes and orders through the HTTP gateway of a running system (`make up`): an open loop
/// that starts requests at a fixed rate, whatever the answers' speed, and measures each latency
/// from the moment the request was due (so a slow answer cannot hide the requests queued behind
/// it). Requests go over kept-alive connections, as an app's would.
public struct OrdersBench: Sendable {
    /// The gateway, e.g. `http://127.0.0.1:8080`.
    public let baseURL: String
    /// Requests per second.
    public let rate: Double
    /// Measured seconds per case.
    public let seconds: Double
    /// Requests that may be in flight at once; a request due while this many are open waits
    /// for one to finish, and the wait counts in its latency.
    public let inFlight: Int

    /// Creates the benchmark.
    public init(url: String, rate: Double, seconds: Double, inFlight: Int) throws {
        guard let components = URLComponents(string: url), components.host != nil else {
            throw BenchError("not a URL: \(url)")
        }
        guard rate > 0, seconds > 0, inFlight > 0 else {
            throw BenchError("--rate, --seconds and --in-flight must be positive")
        }
        self.baseURL = url
        self.rate = rate
        self.seconds = seconds
        self.inFlight = inFlight
    }

    /// Signs up a user with a card, then measures quotes and then orders.
    public func run(progress: @Sendable (String) -> Void) async throws -> [RunResult] {
        try await GatewayHTTP.with(baseURL: baseURL) { http in
            let (token, card) = try await prepare(http)
            let auth = ["Authorization": "Bearer \(token)"]
            let quote = #"{"size": "A6", "recipients": [{"country": "SE"}, {"country": "US"}], "currency": "USD"}"#
            progress("quotes at \(Int(rate))/s for \(seconds) s")
            let quotes = try await openLoop(http, name: "POST /v1/quotes at \(Int(rate))/s", expect: 200) { _ in
                ("/v1/quotes", quote, auth)
            }
            let run = UUID().uuidString.prefix(8)
            progress("orders at \(Int(rate))/s for \(seconds) s")
            let orders = try await openLoop(http, name: "POST /v1/orders at \(Int(rate))/s", expect: 201) { index in
                let body = """
                    {"kind": "postcard", "currency": "USD", "paymentMethodId": "\(card)",
                     "postcard": {"size": "A6", "greeting": "Hej",
                       "recipients": [{"name": "Load \(index)", "address": {"line1": "Storgatan 1", "city": "Lund",
                                       "country": "SE"}}]}}
                    """
                return ("/v1/orders", body, auth.merging(["Idempotency-Key": "\(run)-\(index)"]) { $1 })
            }
            return [quotes, orders]
        }
    }

    func prepare(_ http: GatewayHTTP) async throws -> (token: String, card: String) {
        let username = "bench-\(UUID().uuidString.prefix(8).lowercased())@example.org"
        let credentials = #"{"username": "\#(username)", "password": "Lund2026x"}"#
        let registered = try await http.post("/v1/auth/register", credentials)
        guard registered.status == 201 else { throw BenchError("register: \(registered.status) \(registered.body)") }
        let login = try await http.post("/v1/auth/login", credentials)
        guard let token = jsonField("accessToken", in: login.body) else {
            throw BenchError("login: \(login.status) \(login.body)")
        }
        let card = try await http.post(
            "/v1/payment-methods", #"{"number": "4242424242424242", "expMonth": 12, "expYear": 2099, "cvc": "123"}"#,
            headers: ["Authorization": "Bearer \(token)"])
        guard let id = jsonField("id", in: card.body) else { throw BenchError("card: \(card.status) \(card.body)") }
        return (token, id)
    }

    /// Starts `rate × seconds` POSTs on schedule, after a quarter of a second's worth that is
    /// not measured (warm-up: connections opened, caches filled).
    func openLoop(
        _ http: GatewayHTTP, name: String, expect: Int,
        _ make: @escaping @Sendable (Int) -> (path: String, json: String, headers: [String: String])
    ) async throws -> RunResult {
        let total = Int(rate * seconds)
        let warmup = Int(rate / 4)
        let interval = 1.0 / rate
        let start = ContinuousClock.now + .milliseconds(50)
        let (recorder, failed) = await withTaskGroup(of: (index: Int, status: Int, took: Duration).self) { group in
            var recorder = LatencyRecorder()
            var failed = 0
            var open = 0
            func settle(_ outcome: (index: Int, status: Int, took: Duration)) {
                open -= 1
                guard outcome.index >= warmup else { return }
                if outcome.status == expect {
                    recorder.record(nanoseconds: UInt64(outcome.took.nanoseconds))
                } else {
                    failed += 1
                }
            }
            for index in 0..<(warmup + total) {
                let due = start + .seconds(Double(index) * interval)
                while open >= inFlight, let outcome = await group.next() { settle(outcome) }
                try? await Task.sleep(until: due, clock: .continuous)
                open += 1
                group.addTask {
                    let (path, json, headers) = make(index)
                    let status = (try? await http.post(path, json, headers: headers).status) ?? 0
                    return (index, status, ContinuousClock.now - due)
                }
            }
            while let outcome = await group.next() { settle(outcome) }
            return (recorder, failed)
        }
        let elapsed = Double((ContinuousClock.now - start).nanoseconds) / 1e9 - Double(warmup) / rate
        return recorder.result(name: failed == 0 ? name : "\(name) (\(failed) failed)", seconds: elapsed)
    }
}

/// A failure of the benchmark set-up.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
