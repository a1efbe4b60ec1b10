import Foundation
import TestSupport
import Testing

/// Two gateways behind HAProxy configured as compose's `lb` retries
/// (`deploy/haproxy/upgrade-drill.cfg` carries the same rules and `repeatable.map`): a gateway
/// killed with SIGKILL under load costs no repeatable request, because the balancer sends a
/// request lost with it to the other gateway.
@Suite("gateways behind the balancer (real processes, HAProxy)", .serialized)
struct BalancerHTTPTests {
    let hydration = HydrationHTTPTests()

    @Test(
        "a gateway killed mid-load: every drink logged (a client-made uuid: repeatable) and every read answered, through the other gateway"
    )
    func gatewayKilledUnderLoad() async throws {
        let haproxy = try #require(
            ["/usr/sbin/haproxy", "/usr/bin/haproxy"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "haproxy is not installed (deploy/scripts/bootstrap.sh installs it)")
        let system = try await hydration.startHydration()
        defer { _ = system.stopBlocking() }
        let (secondPort, secondAdmin) = (try TestPorts.free(), try TestPorts.free())
        try system.start(
            "gateway",
            extra: [
                "HTTP_PORT": "\(secondPort)", "ADMIN_HTTP_PORT": "\(secondAdmin)", "READINESS_SERVICES": "auth,hydration",
            ])
        let ann = try await hydration.token(system)

        // The drill's balancer: gateway-1 and -2 are ours, 3 and 4 point at nothing (down).
        let (balancer, admin) = (try TestPorts.free(), try TestPorts.free())
        let template = try String(
            contentsOf: SystemHarness.repositoryRoot.appendingPathComponent("deploy/haproxy/upgrade-drill.cfg"), encoding: .utf8)
        let config = template.replacingOccurrences(of: "@HTTP_PORT@", with: "\(balancer)")
            .replacingOccurrences(of: "@ADMIN_PORT@", with: "\(admin)")
            .replacingOccurrences(of: "@PORT1@", with: "\(system.httpPort)")
            .replacingOccurrences(of: "@PORT2@", with: "\(secondPort)")
            .replacingOccurrences(of: "@PORT3@", with: "\(try TestPorts.free())")
            .replacingOccurrences(of: "@PORT4@", with: "\(try TestPorts.free())")
            .replacingOccurrences(
                of: "@MAP@", with: SystemHarness.repositoryRoot.appendingPathComponent("deploy/haproxy/repeatable.map").path)
        let configFile = system.logDirectory.appendingPathComponent("haproxy.cfg")
        try config.write(to: configFile, atomically: true, encoding: .utf8)
        let balancerProcess = Process()
        balancerProcess.executableURL = URL(fileURLWithPath: haproxy)
        balancerProcess.arguments = ["-db", "-f", configFile.path]
        let balancerLog = try FileHandle(
            forWritingTo: {
                let url = system.logDirectory.appendingPathComponent("haproxy.log")
                _ = FileManager.default.createFile(atPath: url.path, contents: nil)
                return url
            }())
        balancerProcess.standardOutput = balancerLog
        balancerProcess.standardError = balancerLog
        try balancerProcess.run()
        defer { balancerProcess.terminate() }

        @Sendable func send(_ method: String, _ path: String, _ body: String? = nil) async -> HTTP.Response? {
            await offPool {
                HTTP.request(
                    port: balancer, method: method, path: path, body: body, headers: ["Authorization": "Bearer \(ann)"])
            }
        }
        // Both gateways in the balancing before the load starts.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let statuses = await [send("GET", "/readyz"), send("GET", "/readyz")].map { $0?.status }
            if statuses == [200, 200] { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        try #require(await send("GET", "/readyz")?.status == 200, "\(system.logs())")
        try await Task.sleep(for: .seconds(1))

        // Eight clients, each logging a drink then reading its list, over and over, for 6 s; the
        // first gateway is killed after 2 s.
        let first = try #require(system.processes.first { $0.name == "gateway" }).process.processIdentifier
        let start = Date()
        let killer = Task {
            try await Task.sleep(for: .seconds(2))
            kill(first, SIGKILL)
        }
        let outcomes = await withTaskGroup(of: [(String, Int?)].self) { group in
            for client in 0..<8 {
                group.addTask {
                    var outcomes: [(String, Int?)] = []
                    var index = 0
                    while Date().timeIntervalSince(start) < 6 {
                        let uuid = UUID().uuidString.lowercased()
                        let drink =
                            #"{"uuid": "\#(uuid)", "category": "glass", "drankAt": "2026-11-20T08:\#(String(format: "%02d", index % 60)):00Z", "deviceId": "client-\#(client)"}"#
                        outcomes.append(("log \(uuid)", await send("POST", "/v1/me/drinks", drink)?.status))
                        outcomes.append(("list", await send("GET", "/v1/me/drinks?limit=5")?.status))
                        index += 1
                    }
                    return outcomes
                }
            }
            var all: [(String, Int?)] = []
            for await some in group { all += some }
            return all
        }
        try await killer.value
        let failed = outcomes.filter { !([200, 201] as [Int?]).contains($0.1) }
        #expect(outcomes.count > 100, "the load ran: \(outcomes.count) requests")
        #expect(failed.isEmpty, "\(failed.count) of \(outcomes.count) failed: \(failed.prefix(10))")

        // Every drink acknowledged is stored once.
        let logged = Set(outcomes.filter { $0.0.hasPrefix("log ") && $0.1 == 201 }.map { String($0.0.dropFirst(4)) })
        var stored: Set<String> = []
        var cursor: String?
        repeat {
            let page = await send("GET", "/v1/me/drinks?limit=100" + (cursor.map { "&cursor=\($0)" } ?? ""))
            let body = hydration.json(page?.body)
            for item in body["items"] as? [[String: Any]] ?? [] { if let uuid = item["uuid"] as? String { stored.insert(uuid) } }
            cursor = body["nextCursor"] as? String
        } while cursor != nil
        #expect(logged.isSubset(of: stored), "\(logged.subtracting(stored).count) acknowledged drinks missing")
    }
}
