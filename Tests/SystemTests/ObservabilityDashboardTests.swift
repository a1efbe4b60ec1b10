import Foundation
import Testing

/// The on-call dashboard (`deploy/observability/grafana/dashboards/backplane.json`) reads only
/// metrics the processes really serve: every metric name in a panel's query is found in a
/// scrape of a running gateway and of the broker's and services' admin ports after some traffic.
@Suite("System: the Grafana dashboard's metrics exist (real processes)", .serialized)
struct ObservabilityDashboardTests {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// PromQL words that are not metric names.
    static let promQLWords: Set<String> = [
        "sum", "max", "min", "avg", "count", "rate", "irate", "increase", "histogram_quantile", "by", "without",
        "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "topk", "bottomk", "offset",
    ]

    /// The metric names in a PromQL expression: label matchers, `by (...)` lists, range
    /// selectors and numbers taken out first.
    static func metricNames(in expression: String) -> Set<String> {
        var text = expression
        for pattern in [#"\{[^}]*\}"#, #"\[[^\]]*\]"#, #"\b(by|without|on|ignoring)\s*\([^)]*\)"#, #""[^"]*""#] {
            text = text.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
        }
        let words = text.split { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") }.map(String.init)
        return Set(words.filter { word in
            !promQLWords.contains(word) && word.first.map { $0.isLetter || $0 == "_" } == true
        })
    }

    @Test("metric names are read out of PromQL")
    func readsMetricNames() {
        #expect(
            Self.metricNames(
                in: #"histogram_quantile(0.99, sum by (le, route) (rate(http_server_request_duration_bucket{a="b"}[5m])))"#)
                == ["http_server_request_duration_bucket"])
        #expect(
            Self.metricNames(in: #"sum(rate(hb_requests{code=~"5.."}[5m])) / sum(rate(hb_requests[5m]))"#)
                == ["hb_requests"])
    }

    @Test("every metric a dashboard panel uses is served by the gateway, the broker or a service")
    func everyPanelMetricExists() async throws {
        let data = try Data(
            contentsOf: Self.repoRoot.appendingPathComponent("deploy/observability/grafana/dashboards/backplane.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        var used: [String: String] = [:]  // metric -> panel title
        for panel in panels {
            for target in panel["targets"] as? [[String: Any]] ?? [] {
                for name in Self.metricNames(in: target["expr"] as? String ?? "") {
                    used[name] = panel["title"] as? String ?? "?"
                }
            }
        }
        #expect(used.count >= 10, "the dashboard's queries name metrics: \(used)")

        let system = try SystemHarness()
        let authPort = try SystemHarness.freePort()
        let notifyPort = try SystemHarness.freePort()
        let brokerPort = try SystemHarness.freePort()
        try system.start("broker", extra: ["ADMIN_HTTP_PORT": "\(brokerPort)"])
        try system.start("auth", extra: ["ADMIN_HTTP_PORT": "\(authPort)"])
        try system.start("notify", extra: ["ADMIN_HTTP_PORT": "\(notifyPort)"])
        // A login limit of one a minute, so that the second login is refused and counted.
        try system.start("gateway", extra: ["RATE_LIMIT_LOGIN": "1/min,burst=1", "READINESS_SERVICES": "auth,notify"])
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(await system.get("/readyz")?.status == 200, "\(system.logs())")

        let username = "dashboard_\(UInt32.random(in: 0...UInt32.max))"
        #expect(await system.post("/v1/auth/register", json: #"{"username":"\#(username)","password":"Lund2026x"}"#)?.status == 201)
        _ = await system.post("/v1/auth/login", json: #"{"username":"\#(username)","password":"Lund2026x"}"#)
        #expect(await system.post("/v1/auth/login", json: #"{"username":"\#(username)","password":"Lund2026x"}"#)?.status == 429)

        var served = Set<String>()
        for port in [system.gatewayAdminPort, brokerPort, authPort, notifyPort] {
            let body = await offPool { HTTP.request(port: port, method: "GET", path: "/metrics") }?.body ?? ""
            for line in body.split(separator: "\n") where !line.hasPrefix("#") {
                if let name = line.split(whereSeparator: { $0 == "{" || $0 == " " }).first { served.insert(String(name)) }
            }
        }
        for (name, panel) in used.sorted(by: { $0.key < $1.key }) {
            #expect(served.contains(name), "panel \"\(panel)\" uses \(name), which no process serves\n\(served.sorted())")
        }
        _ = await system.stopAll()
    }
}
