import Testing

@testable import UpKit

/// make up's plan from the registry and the environment: names, start order, ports, stand-ins.
@Suite("up: the plan")
struct UpPlanTests {
    static let workers = ["auth", "orders", "printing", "routing", "notify", "hydration", "civic", "social"]

    func plan(_ environment: [String: String]) throws -> UpPlan {
        try UpPlan(environment: environment, workers: Self.workers, root: "/repo")
    }

    @Test("the registry's workers, in its order")
    func registry() {
        let text = """
            # name kind
            broker       broker
            auth         worker
            orders       worker
            gateway      gateway
            loadgen      tool
            """
        #expect(Registry.names(ofKind: "worker", in: text) == ["auth", "orders"])
        #expect(Registry.names(ofKind: "gateway", in: text) == ["gateway"])
    }

    @Test("by default: broker, every worker, one gateway; admin ports from 9100 in start order")
    func defaults() throws {
        let plan = try plan(["BACKPLANE_BIN_DIR": "/bin"])
        #expect(plan.processes.map(\.name) == ["broker"] + Self.workers + ["gateway"])
        #expect(plan.processes.map(\.adminPort) == (0..<10).map { 9100 + $0 })
        #expect(plan.processes[1].executable == "/bin/auth")
        #expect(plan.processes[0].environment == ["ADMIN_HTTP_PORT": "9100", "ADMIN_HTTP_HOST": "127.0.0.1"])
        #expect(plan.httpPort == 8080 && plan.readyURL == "http://127.0.0.1:8080/readyz")
        #expect(plan.environment["HTTP_PORT"] == "8080")
        #expect(plan.environment["READINESS_SERVICES"] == Self.workers.joined(separator: ","))
        #expect(plan.environment["TRUSTED_PROXIES"] == "127.0.0.1,::1")
        #expect(plan.restart == .no && plan.restartDelay.text == "1" && plan.stopTimeout.value == 45)
        #expect(plan.nameWidth == 9)  // "hydration"
        #expect(plan.gazetteer == "/repo/.data/gazetteer/cities15000.tsv")
        // Then the SMTP sink's and the Open States stand-in's (notify and civic run).
        #expect(plan.ports.map(\.port) == [8080, 8090, 5555, 5556, 5557] + (9100..<9110) + [2525, 8095])
        #expect(plan.ports[0].message.hasPrefix("port 8080 (HTTP_PORT) is already in use: is Backplane already running?"))
        #expect(plan.ports[14].message.contains("(ADMIN_PORT_BASE(gateway))"))
        #expect(plan.environment(of: plan.processes[9])["OPERATOR_HTTP_PORT"] == "8090")
        #expect(plan.processes.filter { plan.environment(of: $0)["OPERATOR_HTTP_PORT"] != nil }.map(\.name) == ["gateway"])
        #expect(plan.standIns.map(\.name) == ["smtp", "openstates"])
    }

    @Test("SERVICES and REPLICAS_*: replicas named name-1..name-N, gateways on HTTP_PORT, HTTP_PORT+1")
    func replicas() throws {
        let plan = try plan([
            "SERVICES": "auth  routing", "REPLICAS_routing": "3", "REPLICAS_gateway": "2", "HTTP_PORT": "18080",
            "ADMIN_PORT_BASE": "19100", "BROKER_BIND": "tcp://127.0.0.1:15555", "TRUSTED_PROXIES": "",
            "OPERATOR_PORT": "18090",
        ])
        #expect(
            plan.processes.map(\.name) == [
                "broker", "auth", "routing-1", "routing-2", "routing-3", "gateway-1", "gateway-2",
            ])
        #expect(plan.processes.map(\.adminPort) == (19100..<19107).map { $0 })
        #expect(plan.processes.map { UpPlan.executableName(of: $0.name) } == [
            "broker", "auth", "routing", "routing", "routing", "gateway", "gateway",
        ])
        #expect(plan.environment(of: plan.processes[5])["HTTP_PORT"] == "18080")
        #expect(plan.environment(of: plan.processes[6])["HTTP_PORT"] == "18081")
        #expect(plan.environment(of: plan.processes[1])["HTTP_PORT"] == "18080")
        #expect(plan.firstGateway == "gateway-1" && plan.gateways == 2)
        #expect(plan.environment["READINESS_SERVICES"] == "auth,routing")
        #expect(plan.environment["TRUSTED_PROXIES"] == "")  // set empty: kept empty
        #expect(plan.environment(of: plan.processes[5])["OPERATOR_HTTP_PORT"] == "18090")
        #expect(plan.environment(of: plan.processes[6])["OPERATOR_HTTP_PORT"] == "18091")
        #expect(Array(plan.ports.map(\.port).prefix(5)) == [18080, 18081, 18090, 18091, 15555])
        #expect(plan.ports[1].message.contains("(HTTP_PORT+1)"))
        #expect(plan.gazetteer == nil && plan.standIns.isEmpty)
        #expect(try self.plan(["SERVICES": "auth", "REPLICAS_auth": "0"]).processes.map(\.name) == ["broker", "gateway"])
    }

    @Test("ADMIN_PORT_BASE=off and OPERATOR_PORT=off: no admin port, no console, none checked")
    func adminOff() throws {
        let plan = try plan(["ADMIN_PORT_BASE": "off", "OPERATOR_PORT": "off", "SERVICES": "auth"])
        #expect(plan.processes.allSatisfy { $0.adminPort == nil && $0.environment["ADMIN_HTTP_PORT"] == nil })
        #expect(plan.processes.allSatisfy { $0.environment["OPERATOR_HTTP_PORT"] == nil } && plan.operatorPort == nil)
        #expect(plan.ports.map(\.port) == [8080, 5555, 5556, 5557])
    }

    @Test("wrong settings are refused, each with its message")
    func refusals() {
        let cases: [([String: String], String)] = [
            (["SERVICES": "auth nope"], "unknown service 'nope' in SERVICES (known: \(Self.workers.joined(separator: " ")))"),
            (["REPLICAS_auth": "two"], "REPLICAS_auth must be a number, got 'two'"),
            (["REPLICAS_gateway": "0"], "REPLICAS_gateway must be a number of at least 1, got '0'"),
            (["ADMIN_PORT_BASE": "09100"], "ADMIN_PORT_BASE must be a port number or off, got '09100'"),
            (["OPERATOR_PORT": "console"], "OPERATOR_PORT must be a port number or off, got 'console'"),
            (["RESTART": "sometimes"], "RESTART must be no or always, not 'sometimes'"),
            (["STOP_TIMEOUT": "soon"], "STOP_TIMEOUT must be a number of seconds, got 'soon'"),
        ]
        for (environment, message) in cases {
            #expect(throws: UpError(message)) { try plan(environment) }
        }
    }

    @Test("the stand-ins start with the services that use them, unless a real endpoint is named")
    func standIns() throws {
        let plan = try plan([
            "SERVICES": "orders notify civic", "PAYMENT_PROVIDER": "stripe", "STRIPE_STANDIN_PORT": "18096",
            "STRIPE_STANDIN_DELAY_MS": "50", "SMTP_PORT": "12525",
        ])
        #expect(plan.standIns.map(\.name) == ["smtp", "openstates", "stripe"])
        #expect(plan.standIns[0].executable == "/repo/deploy/smtp-sink/smtp_sink.py")
        #expect(plan.environment["SMTP_SINK_PORT"] == "12525" && plan.environment["SMTP_SINK_DIR"] == "/repo/.data/mail")
        #expect(plan.environment["CIVIC_FEED_URL"] == "http://127.0.0.1:8095")
        #expect(plan.standIns[1].environment == ["STANDIN_PORT": "8095"])
        #expect(plan.environment["STRIPE_BASE_URL"] == "http://127.0.0.1:18096")
        #expect(plan.environment["STRIPE_API_KEY"] == "sk_test_standin")
        #expect(plan.standIns[2].environment == [
            "STANDIN_PORT": "18096", "STANDIN_API_KEY": "sk_test_standin", "STANDIN_DELAY_MS": "50",
        ])
        #expect(plan.ports.suffix(3).map(\.port) == [12525, 8095, 18096])
        #expect(plan.ports.last?.message == "port 18096 (STRIPE_STANDIN_PORT) is already in use; set it or STRIPE_BASE_URL")
        #expect(plan.environment["CIVIC_LOCAL_FILES"] == "/repo/deploy/civic/san_luis_obispo_city_council.sample.json")

        let real = try self.plan([
            "SERVICES": "orders notify civic", "PAYMENT_PROVIDER": "stripe", "STRIPE_BASE_URL": "https://api.stripe.com",
            "SMTP_HOST": "mail.example.org", "CIVIC_FEED_URL": "https://v3.openstates.org", "CIVIC_LOCAL_FILES": "",
        ])
        #expect(real.standIns.isEmpty)
        #expect(real.environment["CIVIC_LOCAL_FILES"] == "")
        #expect(try self.plan(["SERVICES": "notify civic", "SMTP_SINK": "0", "CIVIC_STANDIN": "0"]).standIns.isEmpty)
    }

    @Test("a child's exit described in the shell's terms")
    func statuses() {
        #expect(ExitStatus(waitStatus: 3 << 8) == .exited(3))
        #expect(ExitStatus(waitStatus: 9) == .killed(signal: 9))
        #expect("\(ExitStatus.exited(3))" == "exit code 3")
        #expect("\(ExitStatus.killed(signal: 9))" == "killed by SIGKILL (exit code 137)")
        #expect("\(ExitStatus.killed(signal: 15))" == "killed by SIGTERM (exit code 143)")
    }

    @Test("each line gets the name in a fixed-width column; a last partial line at the end")
    func prefixer() {
        var prefixer = LinePrefixer(name: "auth", width: 8)
        #expect(prefixer.tag == Array("auth     | ".utf8))
        #expect(prefixer.feed(Array("one\ntw".utf8)) == Array("auth     | one\n".utf8))
        #expect(prefixer.feed(Array("o\nthree\nfo".utf8)) == Array("auth     | two\nauth     | three\n".utf8))
        #expect(prefixer.feed(Array("ur".utf8)).isEmpty)
        #expect(prefixer.finish() == Array("auth     | four\n".utf8))
        #expect(prefixer.finish().isEmpty)
        #expect(LinePrefixer(name: "openstates", width: 8).tag == Array("openstates | ".utf8))
    }
}
