import AccessToken
import Foundation
import JWTKit
import Majordomo
import PasswordHashing

/// `loadgen login`: logins through the gateway (HTTP → broker → auth → Argon2id) with N
/// concurrent clients, next to the bound the hashing sets (cores ÷ time of one hash, measured in
/// the same run), plus the gateway's access-token verification (EdDSA, jwt-kit) on its own.
struct LoginBench {
    /// The gateway, e.g. `http://127.0.0.1:8080`.
    var baseURL: String
    /// Client counts to run, one row each.
    var clients: [Int]
    /// Measured seconds per row (a quarter of that again is warm-up).
    var seconds: Double

    struct Row: Sendable {
        let clients: Int
        let result: RunResult
        let errors: Int
    }

    struct Outcome: Sendable {
        /// Median time of one verification, one at a time.
        let hashMillis: Double
        /// Verifications per second with every core verifying at once (the hashing pool's
        /// own ceiling on this machine, where cores may not scale perfectly).
        let allCoresRate: Double
        let cores: Int
        let rows: [Row]
        let verifyIdle: RunResult
        let verifyUnderLoad: RunResult

        /// Logins per second the hashing allows: every core hashing all the time.
        var bound: Double { Double(cores) * 1000 / hashMillis }
        /// The same bound from the rate all cores actually reach together.
        var measuredBound: Double { min(bound, allCoresRate) }
    }

    static let password = "Bench2026x"

    func run(progress: @Sendable (String) -> Void) async throws -> Outcome {
        try await GatewayHTTP.with(baseURL: baseURL) { http in try await measure(http, progress: progress) }
    }

    private func measure(_ http: GatewayHTTP, progress: @Sendable (String) -> Void) async throws -> Outcome {
        progress("hash time: 20 Argon2id verifications (m=19 MiB, t=2, p=1), one at a time")
        let hashMillis = try await Self.hashMillis()
        progress("hash rate: Argon2id verifications on every core at once, 3 s")
        let allCoresRate = try await Self.allCoresRate()
        let users = clients.max() ?? 1
        progress("registering \(users) accounts")
        let prefix = "bench-\(UUID().uuidString.prefix(8).lowercased())"
        let names = (0..<users).map { "\(prefix)-\($0)@example.org" }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for name in names {
                group.addTask {
                    let (status, body) = try await http.post(
                        "/v1/auth/register", #"{"username": "\#(name)", "password": "\#(Self.password)"}"#)
                    guard status == 201 else { throw BenchError("register \(name): HTTP \(status) \(body)") }
                }
            }
            try await group.waitForAll()
        }
        let (status, body) = try await http.post(
            "/v1/auth/login", #"{"username": "\#(names[0])", "password": "\#(Self.password)"}"#)
        guard status == 200, let token = jsonField("accessToken", in: body) else {
            throw BenchError("login: HTTP \(status) \(body)")
        }
        let keys = JWTKeyCollection()
        let (jwksStatus, jwks) = try await http.get("/.well-known/jwks.json")
        guard jwksStatus == 200 else { throw BenchError("jwks: HTTP \(jwksStatus)") }
        try await keys.add(jwksJSON: jwks)
        progress("token verification, idle: 20,000 verifications")
        let verifyIdle = try await Self.verify(token, keys: keys, count: 20_000, name: "token verification, idle")

        var rows: [Row] = []
        var verifyUnderLoad: RunResult?
        for count in clients {
            progress("logins with \(count) concurrent clients: \(seconds) s")
            let warmUp = ContinuousClock.now + .milliseconds(Int64(seconds * 250))
            // Under load, but during the warm-up: the verifications' CPU is not taken from the
            // logins that are counted.
            async let verification: RunResult? =
                count == clients.max()
                ? Self.verify(
                    token, keys: keys, count: 2_000, name: "token verification, during logins",
                    pause: .milliseconds(1), until: warmUp) : nil
            rows.append(try await logins(http, names: Array(names.prefix(count)), warmUp: warmUp))
            if let measured = try await verification { verifyUnderLoad = measured }
        }
        return Outcome(
            hashMillis: hashMillis, allCoresRate: allCoresRate, cores: ProcessInfo.processInfo.activeProcessorCount,
            rows: rows,
            verifyIdle: verifyIdle, verifyUnderLoad: verifyUnderLoad ?? verifyIdle)
    }

    /// Closed loop: each client logs in as its own account again and again.
    private func logins(_ http: GatewayHTTP, names: [String], warmUp: ContinuousClock.Instant) async throws -> Row {
        let end = warmUp + .milliseconds(Int64(seconds * 1000))
        let recorders = try await withThrowingTaskGroup(of: (LatencyRecorder, Int).self) { group in
            for name in names {
                group.addTask {
                    var recorder = LatencyRecorder()
                    var errors = 0
                    let body = #"{"username": "\#(name)", "password": "\#(Self.password)"}"#
                    while ContinuousClock.now < end {
                        let start = ContinuousClock.now
                        let (status, _) = try await http.post("/v1/auth/login", body)
                        let finished = ContinuousClock.now
                        // Throughput is the logins that finish inside the window; counting
                        // only those that also start inside it would drop up to two queue
                        // lengths of work at its edges (about 2 × clients logins).
                        guard finished >= warmUp, finished <= end else { continue }
                        if status == 200 {
                            recorder.record(nanoseconds: UInt64((finished - start).nanoseconds))
                        } else {
                            errors += 1
                        }
                    }
                    return (recorder, errors)
                }
            }
            var all: [(LatencyRecorder, Int)] = []
            for try await part in group { all.append(part) }
            return all
        }
        var merged = LatencyRecorder()
        for (recorder, _) in recorders { merged.merge(recorder) }
        return Row(
            clients: names.count, result: merged.result(name: "\(names.count) clients", seconds: seconds),
            errors: recorders.map(\.1).reduce(0, +))
    }

    /// Median time of one Argon2id verification with the production parameters, in ms.
    static func hashMillis() async throws -> Double {
        let hasher = PasswordHasher(parameters: .owasp, threads: 1)
        let encoded = try await hasher.hash(password)
        var times: [Double] = []
        for _ in 0..<20 {
            let start = ContinuousClock.now
            guard try await hasher.verify(password, against: encoded) else { throw BenchError("hash did not verify") }
            times.append(Double((ContinuousClock.now - start).nanoseconds) / 1e6)
        }
        return times.sorted()[times.count / 2]
    }

    /// Verifications per second with one verification running on every core, as auth's pool
    /// runs them under a login storm, over about three seconds.
    static func allCoresRate() async throws -> Double {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let hasher = PasswordHasher(parameters: .owasp, threads: cores)
        let encoded = try await hasher.hash(password)
        let started = ContinuousClock.now
        let end = started + .seconds(3)
        let done = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<cores {
                group.addTask {
                    var count = 0
                    while ContinuousClock.now < end {
                        guard try await hasher.verify(password, against: encoded) else {
                            throw BenchError("hash did not verify")
                        }
                        count += 1
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(done) / (Double((ContinuousClock.now - started).nanoseconds) / 1e9)
    }

    /// Verifies `token` `count` times (or until `deadline`) the way the gateway does; latencies in µs.
    static func verify(
        _ token: String, keys: JWTKeyCollection, count: Int, name: String, pause: Duration? = nil,
        until deadline: ContinuousClock.Instant? = nil
    ) async throws -> RunResult {
        var recorder = LatencyRecorder()
        let started = ContinuousClock.now
        for _ in 0..<count {
            if let deadline, ContinuousClock.now >= deadline { break }
            let start = ContinuousClock.now
            _ = try await keys.verify(token, as: AccessClaims.self)
            recorder.record(nanoseconds: UInt64((ContinuousClock.now - start).nanoseconds))
            if let pause { try await Task.sleep(for: pause) }
        }
        return recorder.result(name: name, seconds: Double((ContinuousClock.now - started).nanoseconds) / 1e9)
    }

    /// The figures as a table.
    static func table(_ outcome: Outcome) -> String {
        var lines = [
            "",
            String(
                format: "hashing bound: %d cores / %.1f ms per Argon2id verification = %.1f logins/s",
                outcome.cores, outcome.hashMillis, outcome.bound),
            String(
                format: "every core hashing at once: %.1f verifications/s (%.0f%% of that)", outcome.allCoresRate,
                100 * outcome.allCoresRate / outcome.bound),
            "of bound: against the lower of the two",
            "",
            "clients".padded(10) + "logins/s".leftPadded(10) + "of bound".leftPadded(10) + "p50 ms".leftPadded(10)
                + "p99 ms".leftPadded(10) + "max ms".leftPadded(10) + "errors".leftPadded(8),
            String(repeating: "-", count: 68),
        ]
        for row in outcome.rows {
            let share = 100 * row.result.rate / outcome.measuredBound
            lines.append(
                "\(row.clients)".padded(10) + String(format: "%.1f", row.result.rate).leftPadded(10)
                    + String(format: "%.0f%%", share).leftPadded(10)
                    + String(format: "%.1f", Double(row.result.p50) / 1000).leftPadded(10)
                    + String(format: "%.1f", Double(row.result.p99) / 1000).leftPadded(10)
                    + String(format: "%.1f", Double(row.result.max) / 1000).leftPadded(10)
                    + "\(row.errors)".leftPadded(8))
        }
        lines.append("")
        for result in [outcome.verifyIdle, outcome.verifyUnderLoad] {
            lines.append(
                "\(result.name): p50 \(result.p50) µs, p99 \(result.p99) µs, max \(result.max) µs (\(result.count) tokens)"
            )
        }
        lines.append("")
        lines.append("\(ProcessInfo.processInfo.activeProcessorCount) cores; \(Date())")
        return lines.joined(separator: "\n")
    }

    static func json(_ outcome: Outcome) throws -> Data {
        let object: [String: Any] = [
            "cores": outcome.cores, "hashMillis": outcome.hashMillis, "boundLoginsPerSecond": outcome.bound,
            "allCoresVerificationsPerSecond": outcome.allCoresRate,
            "measuredBoundLoginsPerSecond": outcome.measuredBound,
            "rows": outcome.rows.map {
                [
                    "clients": $0.clients, "loginsPerSecond": $0.result.rate, "p50Micros": Int($0.result.p50),
                    "p99Micros": Int($0.result.p99), "maxMicros": Int($0.result.max), "errors": $0.errors,
                    "shareOfBound": $0.result.rate / outcome.measuredBound,
                ] as [String: Any]
            },
            "tokenVerifyIdleP99Micros": Int(outcome.verifyIdle.p99),
            "tokenVerifyUnderLoadP99Micros": Int(outcome.verifyUnderLoad.p99),
        ]
        return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    }
}
