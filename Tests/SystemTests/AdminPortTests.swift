import Foundation
import Glibc
import Testing

/// Each worker's own admin port (`ADMIN_HTTP_PORT`): liveness, readiness of this process, its
/// metrics, and `--probe` asking it rather than any replica through the broker.
@Suite("System: a worker's admin port (real processes)", .serialized)
struct AdminPortTests {
    func admin(_ port: Int, _ path: String) async -> HTTP.Response? {
        await offPool { HTTP.request(port: port, method: "GET", path: path) }
    }

    func eventually(
        _ port: Int, _ path: String, status: Int, within seconds: TimeInterval = 30
    ) async throws -> HTTP.Response? {
        let deadline = Date().addingTimeInterval(seconds)
        var last: HTTP.Response?
        while Date() < deadline {
            last = await admin(port, path)
            if last?.status == status { return last }
            try await Task.sleep(for: .milliseconds(200))
        }
        return last
    }

    @Test("/healthz, /readyz (database and broker), /metrics with operations by outcome; --probe asks this process")
    func adminPort() async throws {
        let system = try SystemHarness()
        let port = try SystemHarness.freePort()
        let adminEnv = ["ADMIN_HTTP_PORT": "\(port)"]
        let brokerPort = try SystemHarness.freePort()
        try system.start("broker", extra: ["ADMIN_HTTP_PORT": "\(brokerPort)"])
        try system.start("auth", extra: adminEnv)
        let notifyPort = try SystemHarness.freePort()
        try system.start("notify", extra: ["ADMIN_HTTP_PORT": "\(notifyPort)"])
        let gatewayPort = try SystemHarness.freePort()
        try system.start("gateway", extra: ["ADMIN_HTTP_PORT": "\(gatewayPort)", "READINESS_SERVICES": "auth,notify"])

        let ready = try await eventually(port, "/readyz", status: 200)
        #expect(ready?.status == 200, "\(ready?.body ?? "no answer")\n\(system.logs())")
        #expect(ready?.body == #"{"checks":{"broker":"ok","database":"ok"},"status":"ok"}"#)
        #expect(await admin(port, "/healthz")?.status == 200)

        // Requests through the gateway are counted by operation and outcome (once it listens: it
        // reads its document at start).
        let listening = try await eventually(gatewayPort, "/readyz", status: 200)
        #expect(listening?.status == 200, "\(listening?.body ?? "no answer")")
        let username = "admin_port_\(UInt32.random(in: 0...UInt32.max))"
        let registered = await system.post(
            "/v1/auth/register", json: #"{"username":"\#(username)","password":"Lund2026x"}"#)
        #expect(registered?.status == 201, "\(system.logs())")
        let wrong = await system.post(
            "/v1/auth/login", json: #"{"username":"\#(username)","password":"Lund2026y"}"#)
        #expect(wrong?.status == 401)
        let metrics = await admin(port, "/metrics")?.body ?? ""
        #expect(metrics.contains(#"backplane_operations_total{service="auth",operation="register",outcome="ok"} 1"#))
        #expect(metrics.contains(#"backplane_operations_total{service="auth",operation="login",outcome="unauthenticated"} 1"#))
        #expect(metrics.contains(#"backplane_operation_duration_seconds_count{service="auth",operation="register"} 1"#))
        for name in ["process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds"] {
            #expect(metrics.contains("\n\(name) "), "\(name) in /metrics")
        }
        #expect(!metrics.contains(username), "no user data in metric labels")

        // A worker with a job table and durable consumers shows its backlog: jobs by state (the
        // dead letters among them), the oldest due job's wait, and each consumer's lag, which
        // reaches 0 once notify has handled the registration.
        _ = try await eventually(notifyPort, "/readyz", status: 200)
        let deadline = Date().addingTimeInterval(30)
        var backlog = ""
        while Date() < deadline {
            backlog = await admin(notifyPort, "/metrics")?.body ?? ""
            if backlog.contains(#"backplane_event_consumer_lag_events{service="notify",consumer="notify.auth"} 0"#) { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        for line in [
            #"backplane_event_consumer_lag_events{service="notify",consumer="notify.auth"} 0"#,
            #"backplane_event_consumer_lag_seconds{service="notify",consumer="notify.auth"} 0"#,
            #"backplane_event_consumer_lag_events{service="notify",consumer="notify.services"} "#,
            #"backplane_jobs{service="notify",queue="jobs",state="dead"} "#,
            #"backplane_jobs{service="notify",queue="jobs",state="queued"} "#,
            #"backplane_job_oldest_due_age_seconds{service="notify",queue="jobs"} "#,
        ] {
            #expect(backlog.contains(line), "\(line) in notify's /metrics:\n\(backlog)")
        }
        #expect(backlog.contains(#"backplane_workload_scrape_errors_total{service="notify"} 0"#))
        // Its connection pool: the limit, and its connections by state, found in
        // pg_stat_activity by the process's own application_name.
        #expect(backlog.contains(#"backplane_db_pool_max_connections{service="notify"} 20"#), "\(backlog)")
        let pool = ["active", "idle", "idle_in_transaction", "other"].map { state in
            Self.gauge(backlog, #"backplane_db_pool_connections{service="notify",state="\#(state)"}"#)
        }
        #expect(pool.allSatisfy { $0 != nil }, "every state has a series:\n\(backlog)")
        #expect(pool.compactMap { $0 }.reduce(0, +) >= 1, "notify keeps connections open:\n\(backlog)")

        // The broker's own port: per service, requests accepted, waiting and live workers, and
        // its counters; its --probe asks it there.
        let brokerReady = try await eventually(brokerPort, "/readyz", status: 200)
        #expect(brokerReady?.body == #"{"checks":{"loop":"ok"},"status":"ok"}"#)
        let brokerMetrics = await admin(brokerPort, "/metrics")?.body ?? ""
        for line in [
            #"backplane_broker_workers{service="auth"} 1"#, #"backplane_broker_queued{service="auth"} 0"#,
            #"backplane_broker_workers{service="notify"} 1"#, "backplane_broker_replies_total ",
            "backplane_broker_expired_total ", "backplane_broker_abandoned_total ",
        ] {
            #expect(brokerMetrics.contains(line), "\(line) in the broker's /metrics:\n\(brokerMetrics)")
        }
        let accepted = brokerMetrics.split(separator: "\n")
            .first { $0.hasPrefix(#"backplane_broker_requests_total{service="auth"} "#) }
            .flatMap { Int($0.split(separator: " ").last ?? "") }
        #expect((accepted ?? 0) >= 2, "the registration and the login went through the broker")
        let (brokerProbed, brokerOutput) = try await system.runToEnd(
            "broker", arguments: ["--probe"], extra: ["ADMIN_HTTP_PORT": "\(brokerPort)"])
        #expect(brokerProbed == 0 && brokerOutput.contains("admin port \(brokerPort)"), "\(brokerOutput)")

        // The gateway's own port: ready while its broker answers; the same registry as its
        // public /metrics, with the process figures.
        let gatewayReady = try await eventually(gatewayPort, "/readyz", status: 200)
        #expect(gatewayReady?.body == #"{"checks":{"broker":"ok"},"status":"ok"}"#)
        let gatewayMetrics = await admin(gatewayPort, "/metrics")?.body ?? ""
        #expect(gatewayMetrics.contains(#"hb_requests{http_route="/v1/auth/register""#), "\(gatewayMetrics)")
        // The per-route series keep Hummingbird's names (dashboards read them).
        #expect(
            gatewayMetrics.contains(#"http_server_request_duration_bucket{http_route="/v1/auth/register""#),
            "\(gatewayMetrics)")
        #expect(gatewayMetrics.contains(#"http_server_active_requests{http_request_method="#), "\(gatewayMetrics)")
        #expect(gatewayMetrics.contains("\nprocess_open_fds "))
        let (gatewayProbed, gatewayOutput) = try await system.runToEnd(
            "gateway", arguments: ["--probe"], extra: ["ADMIN_HTTP_PORT": "\(gatewayPort)"])
        #expect(gatewayProbed == 0 && gatewayOutput.contains("admin port \(gatewayPort)"), "\(gatewayOutput)")

        // --probe asks this process's own /readyz.
        let (probed, output) = try await system.runToEnd("auth", arguments: ["--probe"], extra: adminEnv)
        #expect(probed == 0 && output.contains("admin port \(port)"), "\(output)")

        // Without the broker the process is alive but not ready, and says why; --probe fails.
        let broker = try #require(system.processes.first { $0.name == "broker" }?.process)
        kill(broker.processIdentifier, SIGKILL)
        let unready = try await eventually(port, "/readyz", status: 503)
        #expect(unready?.status == 503)
        #expect(unready?.body.contains(#""broker":"not registered"#) == true, "\(unready?.body ?? "")")
        #expect(unready?.body.contains(#""database":"ok""#) == true)
        #expect(await admin(port, "/healthz")?.status == 200)
        let (failed, _) = try await system.runToEnd("auth", arguments: ["--probe"], extra: adminEnv)
        #expect(failed != 0)
        // The gateway's bus client lost its connection: not ready, saying the broker is not reachable.
        let gatewayUnready = try await eventually(gatewayPort, "/readyz", status: 503)
        #expect(gatewayUnready?.body.contains("not reachable") == true, "\(gatewayUnready?.body ?? "")")
        #expect(await admin(gatewayPort, "/healthz")?.status == 200)
        _ = await system.stopAll()
    }

    /// The value of the series `series` (name and labels, as printed) in a Prometheus text body.
    static func gauge(_ body: String, _ series: String) -> Double? {
        body.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.dropFirst(series.count + 1)) }
    }
}
