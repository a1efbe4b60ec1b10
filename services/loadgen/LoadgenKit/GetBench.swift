import Foundation
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// `loadgen get`: one URL asked for over and over, with the load generator's own HTTP client, and
/// what that cost the load generator.
///
/// - Closed loop (`connections`): each connection sends its next request when the answer to the
///   last is in, as `wrk` does, so the rate beside `wrk`'s on the same URL in the same minute
///   says how far the load generator is from a C client, and its CPU per request what it takes
///   from the machine it measures.
/// - Open loop (`rate`): requests due at a fixed rate whatever the answers' speed, latency from
///   when each was due: the p99 of a route at a given share of its top rate. At most `inFlight`
///   are open at once (64 by default, as `wrk2 -c64 -R rate`), so at most that many connections:
///   a request due while all are busy waits for one, and its wait counts. Without the cap, every
///   request due during a hiccup opened a connection of its own; a burst of thousands of new
///   connections then cost the server more than the hiccup (measured 2026-12-01: 4,000-8,000
///   connections opened in 8 s at 11,500/s, p99 190-550 ms; see docs/benchmarks.md).
struct GetBench: Sendable {
    var url: String
    var seconds: Double
    /// Closed loop with this many connections; nil for open loop at `rate`.
    var connections: Int?
    var rate: Double?
    /// Open loop: requests (and so connections) open at most.
    var inFlight = 64
    var headers: [(String, String)] = []
    /// Seconds run before the measured window and not counted (connections opened, caches warm).
    var warmup = 1.0

    struct Outcome: Sendable {
        var recorder = LatencyRecorder()
        /// Answers by status; 0 is a request without one.
        var statuses: [Int: Int] = [:]
        var seconds = 0.0
        /// The load generator's CPU time (user and system, all threads) in the measured window.
        var cpuSeconds = 0.0

        var requests: Int { statuses.values.reduce(0, +) }
        var errors: Int { statuses.filter { $0.key != 200 }.values.reduce(0, +) }
    }

    /// `http://host[:port]/path?query`: the endpoint and the request target.
    static func split(_ url: String) throws -> (host: String, port: Int, target: String) {
        guard url.hasPrefix("http://") else { throw UsageError("--url wants an http:// URL with a path, not '\(url)'") }
        let rest = url.dropFirst(7)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        guard let endpoint = GatewayHTTP.plainEndpoint("http://" + rest[..<slash]) else {
            throw UsageError("--url has no host and port that can be read: '\(url)'")
        }
        let target = slash == rest.endIndex ? "/" : String(rest[slash...])
        return (endpoint.host, endpoint.port, target)
    }

    func run() async throws -> Outcome {
        let (host, port, target) = try Self.split(url)
        let client = PlainHTTPClient(host: host, port: port)
        defer { client.shutdown() }
        if warmup > 0 { _ = await measure(client, target: target, seconds: warmup) }
        let before = Self.cpuSeconds()
        var outcome = await measure(client, target: target, seconds: seconds)
        outcome.cpuSeconds = Self.cpuSeconds() - before
        return outcome
    }

    private func measure(_ client: PlainHTTPClient, target: String, seconds: Double) async -> Outcome {
        let headers = self.headers
        let start = ContinuousClock.now
        if let connections {
            let end = start + .seconds(seconds)
            var outcome = await withTaskGroup(of: Outcome.self) { group in
                for _ in 0..<connections {
                    group.addTask {
                        // Each connection tallies alone; the tallies are merged at the end.
                        var own = Outcome()
                        while ContinuousClock.now < end {
                            let sent = ContinuousClock.now
                            let status =
                                (try? await client.execute(
                                    method: .GET, path: target, headers: headers, body: nil, timeout: .seconds(30)
                                ).status) ?? 0
                            own.statuses[status, default: 0] += 1
                            if status == 200 {
                                own.recorder.record(nanoseconds: UInt64(max(0, (ContinuousClock.now - sent).nanoseconds)))
                            }
                        }
                        return own
                    }
                }
                var all = Outcome()
                for await own in group {
                    all.recorder.merge(own.recorder)
                    all.statuses.merge(own.statuses, uniquingKeysWith: +)
                }
                return all
            }
            outcome.seconds = Double((ContinuousClock.now - start).nanoseconds) / 1e9
            return outcome
        }
        let tally = Tally()
        let arrivals = SteadyArrivals(rate: rate ?? 1) { _ in
            { due in
                let status =
                    (try? await client.execute(
                        method: .GET, path: target, headers: headers, body: nil, timeout: .seconds(30)
                    ).status) ?? 0
                tally.record("get", status: status, latency: .now - due, expected: [200])
            }
        }
        let loop = OpenLoop(
            seconds: seconds, inFlight: inFlight, progressEvery: 0, executor: EventLoopTaskExecutor(group: .singleton))
        let elapsed = await loop.run(arrivals, tally: tally)
        let kind = tally.snapshot["get"] ?? Tally.Kind()
        return Outcome(recorder: kind.recorder, statuses: kind.statuses, seconds: elapsed)
    }

    /// User and system CPU time of this process so far, all threads.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// One line for people and scripts: the load, then `key value` pairs.
    func line(_ outcome: Outcome) -> String {
        let load = connections.map { "\($0) connections (closed loop)" } ?? String(format: "%.0f/s (open loop, at most %ld in flight)", rate ?? 0, inFlight)
        let result = outcome.recorder.result(name: "get", seconds: outcome.seconds)
        let perRequest = outcome.requests > 0 ? outcome.cpuSeconds * 1e6 / Double(outcome.requests) : 0
        return String(
            format: "get %@, %@, %.1f s: requests %d rate %.0f p50_ms %.2f p99_ms %.2f max_ms %.1f non200 %d loadgen_cpu_us %.1f",
            url, load, outcome.seconds, outcome.requests, Double(outcome.requests) / max(outcome.seconds, 1e-9),
            Double(result.p50) / 1000, Double(result.p99) / 1000, Double(result.max) / 1000, outcome.errors, perRequest)
    }
}
