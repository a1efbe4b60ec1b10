import Foundation
import Glibc
import Testing

/// The whole system as separate processes: broker, six services and the gateway, HTTP in.
@Suite("System (real processes)", .serialized)
struct SystemTests {
    /// The MDP services, as deploy/services.txt names them (the one list of Backplane's processes).
    static let services: [String] = {
        let registry = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy/services.txt")
        let text = (try? String(contentsOf: registry, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return fields.count >= 2 && !fields[0].hasPrefix("#") && fields[1] == "worker" ? String(fields[0]) : nil
        }
    }()

    func waitForReady(_ system: SystemHarness, timeout: TimeInterval = 90) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = "no answer"
        while Date() < deadline {
            if let response = await system.get("/readyz") {
                last = "\(response.status) \(response.body)"
                if response.status == 200 { return response.body }
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        Issue.record("not ready within \(timeout) s; last /readyz: \(last)\n\(system.logs())")
        return last
    }

    @Test("the system starts, /readyz turns 200, a killed replica is covered by another, and SIGTERM stops all cleanly")
    func lifecycle() async throws {
        let system = try SystemHarness(ownDatabase: true)  // its printing takes paid orders
        try #require(Self.services.count >= 8, "deploy/services.txt lists the services")
        try system.start("broker")
        for service in Self.services { try system.start(service) }
        let spare = try system.start("routing")
        try system.start("gateway")
        let body = try await waitForReady(system)
        for name in ["broker"] + Self.services { #expect(body.contains("\"name\":\"\(name)\"")) }

        // kill -9 one of the two routing replicas: readiness (a real health call) still passes.
        kill(spare.processIdentifier, SIGKILL)
        spare.waitUntilExit()
        var answers: [Int] = []
        for _ in 0..<5 {
            answers.append(await system.get("/readyz")?.status ?? 0)
            try await Task.sleep(for: .milliseconds(300))
        }
        #expect(answers.filter { $0 == 200 }.count >= 3, "readiness after a replica died: \(answers)")
        #expect(await system.get("/readyz")?.status == 200)

        let statuses = await system.stopAll()
        for (name, status) in statuses where name != "routing" || status != 9 {
            if status == nil { Issue.record("\(name) did not stop within 20 s of SIGTERM") }
        }
        let clean = statuses.filter { $0.1 == 0 }.count
        #expect(clean == statuses.count - 1, "every process but the killed one exits 0: \(statuses)\n\(system.logs())")
        #expect(await system.get("/healthz") == nil, "nothing listens after shutdown")
    }

    @Test("every executable lists its settings with --help and exits 0")
    func help() async throws {
        let system = try SystemHarness()
        for name in ["broker", "gateway"] + Self.services {
            let (status, output) = try await system.runToEnd(name, arguments: ["--help"])
            #expect(status == 0, "\(name) --help")
            #expect(output.contains("LOG_LEVEL"), "\(name) lists its settings")
            #expect(output.contains(name == "broker" ? "BROKER_BIND" : "BROKER_URL"))
        }
    }

    @Test("every executable prints its version and commit with --version and exits 0")
    func version() async throws {
        let system = try SystemHarness()
        for name in ["broker", "gateway"] + Self.services {
            let (status, output) = try await system.runToEnd(
                name, arguments: ["--version"], extra: ["BACKPLANE_COMMIT": "3951d55"])
            #expect(status == 0, "\(name) --version")
            #expect(output.contains("\(name) 0.34.0 (commit 3951d55)"), "\(output)")
        }
        // Not a commit id: said to be unknown rather than printed.
        let (_, odd) = try await system.runToEnd("broker", arguments: ["--version"], extra: ["BACKPLANE_COMMIT": "x y"])
        #expect(odd.contains("(commit unknown)"), "\(odd)")
    }

    @Test("every setting an executable lists with --help is documented, in the README or the service's docs")
    func settingsDocumented() async throws {
        let system = try SystemHarness()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
        let docs = root.appendingPathComponent("docs")
        let pages =
            [root.appendingPathComponent("README.md")]
            + (try FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil))
            .filter { $0.pathExtension == "md" }
        let documentation = try pages.map { try String(contentsOf: $0, encoding: .utf8) }.joined(separator: "\n")
        var names: Set<String> = []
        for executable in ["broker", "gateway"] + Self.services {
            let (_, output) = try await system.runToEnd(executable, arguments: ["--help"])
            let lines = output.split(separator: "\n").drop { !$0.hasPrefix("Settings") }.dropFirst()
            let listed = lines.compactMap { line -> String? in
                let name = line.drop { $0 == " " }.prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
                return name.count > 2 ? String(name) : nil
            }
            #expect(!listed.isEmpty, "\(executable) --help lists no settings")
            names.formUnion(listed)
        }
        #expect(names.count > 40)
        let undocumented = names.filter { !documentation.contains("`\($0)`") }.sorted()
        #expect(undocumented == [], "settings in no README.md or docs/*.md")
    }

    @Test("a setting's former name still works, and the process warns at start naming the new one")
    func formerSettingName() async throws {
        let system = try SystemHarness()
        // A bad WORKER_CONCURRENCY ends the process right after its start-up lines.
        let (status, output) = try await system.runToEnd(
            "auth", arguments: [], extra: ["LOGIN_HOLD_MINUTES": "30", "WORKER_CONCURRENCY": "lots"])
        #expect(status == 78)
        #expect(output.contains("setting renamed: use LOGIN_HOLD_S"))
        #expect(output.contains("LOGIN_HOLD_MINUTES"))
        let (_, current) = try await system.runToEnd(
            "auth", arguments: [], extra: ["LOGIN_HOLD_S": "1800", "WORKER_CONCURRENCY": "lots"])
        #expect(!current.contains("setting renamed"))
        let (badStatus, badOutput) = try await system.runToEnd(
            "auth", arguments: [], extra: ["LOGIN_HOLD_MINUTES": "0"])
        #expect(badStatus == 78)
        #expect(badOutput.contains("LOGIN_HOLD_S=0 is not valid"))
    }

    @Test("a bad setting stops the process at once with a message naming it")
    func badSetting() async throws {
        let system = try SystemHarness()
        let (status, output) = try await system.runToEnd("auth", arguments: [], extra: ["WORKER_CONCURRENCY": "lots"])
        #expect(status == 78)
        #expect(output.contains("WORKER_CONCURRENCY=lots"))
        let (startStatus, startOutput) = try await system.runToEnd(
            "notify", arguments: [], extra: ["WORKER_HANDLER_START": "sideways"])
        #expect(startStatus == 78)
        #expect(startOutput.contains("WORKER_HANDLER_START=sideways is not valid: expected one of pool, io-thread, auto"))
        let (levelStatus, levelOutput) = try await system.runToEnd(
            "broker", arguments: [], extra: ["LOG_LEVEL": "loud"])
        #expect(levelStatus == 78)
        #expect(
            levelOutput.contains(
                "LOG_LEVEL=loud is not valid: expected one of trace, debug, info, notice, warning, error, critical"))
        let (brokerURLStatus, brokerURLOutput) = try await system.runToEnd(
            "notify", arguments: [], extra: ["BROKER_URL": "inproc://broker"])
        #expect(brokerURLStatus == 78)
        #expect(brokerURLOutput.contains("BROKER_URL=inproc://broker is not valid: expected tcp://HOST:PORT"))
        let (bindStatus, bindOutput) = try await system.runToEnd(
            "broker", arguments: [], extra: ["BROKER_BIND": "ipc:///tmp/backplane-broker"])
        #expect(bindStatus != 0, "the broker serves tcp:// only")
        #expect(bindOutput.contains("ipc:///tmp/backplane-broker"))
        let (unknownStatus, unknownOutput) = try await system.runToEnd("broker", arguments: ["--frobnicate"])
        #expect(unknownStatus == 64)
        #expect(unknownOutput.contains("--help"))
        // Civic's outlines file is read at start: a ring left open stops it, naming file, feature and rule.
        let outlines = FileManager.default.temporaryDirectory.appendingPathComponent(
            "civic-outlines-\(UUID().uuidString).geojson")
        try Data(
            #"""
            {"type": "FeatureCollection", "features": [{"type": "Feature", "id": "state:ca/sldl:99",
             "properties": {"jurisdictionId": "ocd-jurisdiction/country:us/state:ca/government",
                            "name": "California Assembly District 99", "level": "state", "district": "99"},
             "geometry": {"type": "MultiPolygon",
                          "coordinates": [[[[-119.9, 36.6], [-119.7, 36.6], [-119.7, 36.8], [-119.9, 36.8]]]]}}]}
            """#.utf8
        ).write(to: outlines)
        defer { try? FileManager.default.removeItem(at: outlines) }
        let (civicStatus, civicOutput) = try await system.runToEnd(
            "civic", arguments: [], extra: ["CIVIC_BOUNDARIES_FILE": outlines.path])
        #expect(civicStatus == 78, "\(civicOutput)")
        #expect(
            civicOutput.contains(
                "CIVIC_BOUNDARIES_FILE=\(outlines.path) is not valid: expected features[0].geometry.coordinates[0][0]: a closed ring"),
            "\(civicOutput)")
    }

    @Test("--probe fails while the broker is down and succeeds once it runs")
    func probe() async throws {
        let system = try SystemHarness()
        #expect(try await system.runToEnd("broker", arguments: ["--probe"]).0 != 0)
        try system.start("broker")
        var status: Int32 = 1
        for _ in 0..<40 where status != 0 {
            status = try await system.runToEnd("broker", arguments: ["--probe"]).0
            if status != 0 { try await Task.sleep(for: .milliseconds(250)) }
        }
        #expect(status == 0)
        _ = await system.stopAll()
    }
}
