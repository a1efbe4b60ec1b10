import Foundation
import Synchronization
import Testing

@testable import UpKit

#if canImport(Glibc)
import Glibc
#endif

/// The supervisor against real child processes: small shell scripts and python3 one-liners in a
/// throwaway bin folder, named like Backplane's executables, and a real HTTP listener as the
/// gateway. Serialized: each test starts processes and listens on ports.
@Suite("up: the supervisor runs real processes", .serialized)
struct SupervisorTests {
    /// A repository and bin folder in a temporary directory, with free ports.
    final class Rig: Sendable {
        let folder: String
        let bin: String
        let state: String
        let environment: [String: String]

        init(workers: [String] = ["auth", "orders"]) throws {
            folder = NSTemporaryDirectory() + "up-tests-\(UUID().uuidString)"
            bin = folder + "/bin"
            state = folder + "/state"
            for path in [bin, state, folder + "/deploy"] {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            }
            let registry = (["broker broker"] + workers.map { "\($0) worker" } + ["gateway gateway"]).joined(separator: "\n")
            try registry.write(toFile: folder + "/deploy/services.txt", atomically: true, encoding: .utf8)
            environment = [
                "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "STATE": state,
                "BACKPLANE_BIN_DIR": bin, "HTTP_PORT": String(freePort()), "ADMIN_PORT_BASE": "off",
                "BROKER_BIND": "tcp://127.0.0.1:\(freePort())", "EVENTS_XSUB_BIND": "tcp://127.0.0.1:\(freePort())",
                "EVENTS_XPUB_BIND": "tcp://127.0.0.1:\(freePort())", "READY_TIMEOUT": "20", "STOP_TIMEOUT": "5",
                "BROKER_READY_TIMEOUT": "5",
            ]
            // The broker answers --probe once it has written broker-ready, half a second after it starts.
            script("broker", """
                if [ "$1" = --probe ]; then echo probe >> "$STATE/probes"; test -f "$STATE/broker-ready"; exit; fi
                echo "broker starting"
                echo broker >> "$STATE/order"
                ( sleep 0.5; touch "$STATE/broker-ready" ) >/dev/null 2>&1 &
                exec sleep 600
                """)
            for worker in workers { service(worker) }
            // The gateway answers /readyz 503 for its first second, then 200.
            script("gateway", """
                echo gateway >> "$STATE/order"
                exec python3 -u -c '
                import http.server, os, time
                start = time.monotonic()
                class Handler(http.server.BaseHTTPRequestHandler):
                    def do_GET(self):
                        self.send_response(200 if time.monotonic() - start > 1 else 503)
                        self.end_headers()
                    def log_message(self, *args):
                        pass
                print("gateway listening on", os.environ["HTTP_PORT"])
                http.server.HTTPServer(("127.0.0.1", int(os.environ["HTTP_PORT"])), Handler).serve_forever()
                '
                """)
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }

        /// A service that says whether the broker was ready when it started, then waits; two
        /// whole lines and a last one without its newline.
        func service(_ name: String) {
            script(name, """
                echo "\(name)" >> "$STATE/order"
                if [ -f "$STATE/broker-ready" ]; then echo "broker was ready"; fi
                printf 'first line\\nsecond line\\nno newline'
                exec sleep 600
                """)
        }

        func script(_ name: String, _ body: String) {
            let path = "\(bin)/\(name)"
            _ = FileManager.default.createFile(atPath: path, contents: Data("#!/bin/sh\n\(body)\n".utf8))
            chmod(path, 0o755)
        }

        func plan(_ overrides: [String: String] = [:]) throws -> UpPlan {
            try UpPlan(
                environment: environment.merging(overrides) { _, new in new },
                workers: Registry.names(
                    ofKind: "worker", in: try String(contentsOfFile: folder + "/deploy/services.txt", encoding: .utf8)),
                root: folder)
        }

        func read(_ name: String) -> String { (try? String(contentsOfFile: "\(state)/\(name)", encoding: .utf8)) ?? "" }
    }

    /// A supervisor running on a thread of its own (`run` blocks), its output and messages in files.
    final class Running: Sendable {
        let inbox: SignalInbox
        let outputPath: String
        let reportPath: String
        private let code = Mutex<Int32?>(nil)

        init(_ plan: UpPlan, in folder: String) throws {
            inbox = try SignalInbox()
            outputPath = folder + "/output.log"
            reportPath = folder + "/report.log"
            let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            let report = open(reportPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            let inbox = inbox
            let thread = Thread { [self] in
                let supervisor = try! Supervisor(
                    plan: plan, signals: inbox, output: output, report: Reporter(fd: report), checksEveryChild: false)
                let result = supervisor.run()
                close(output)
                close(report)
                self.code.withLock { $0 = result }
            }
            thread.start()
        }

        var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
        var report: String { (try? String(contentsOfFile: reportPath, encoding: .utf8)) ?? "" }

        /// Waits until the messages contain `text` `count` times.
        func waitFor(_ text: String, count: Int = 1, seconds: Double = 20) async throws {
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            while report.components(separatedBy: text).count - 1 < count {
                if ContinuousClock.now > deadline {
                    Issue.record("no \(count)× '\(text)' within \(seconds) s; messages:\n\(report)\noutput:\n\(output)")
                    throw CancellationError()
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }

        /// The exit code, once `run` has returned.
        func finish(seconds: Double = 20) async throws -> Int32 {
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            while true {
                if let code = code.withLock({ $0 }) { return code }
                if ContinuousClock.now > deadline {
                    Issue.record("the supervisor did not return; messages:\n\(report)")
                    throw CancellationError()
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }

        /// The pids of the "started NAME (pid N...)" lines, in order.
        func pids(of name: String) -> [pid_t] {
            report.split(separator: "\n").compactMap { line in
                guard line.hasPrefix("[up] started \(name) (pid ") else { return nil }
                return pid_t(line.dropFirst("[up] started \(name) (pid ".count).prefix { $0.isNumber })
            }
        }
    }

    static func isRunning(_ pid: pid_t) -> Bool { kill(pid, 0) == 0 }

    @Test("start order, broker probe, readiness over HTTP, tagged output; SIGINT stops all, none left")
    func lifecycle() async throws {
        let rig = try Rig()
        let running = try Running(try rig.plan(), in: rig.folder)
        try await running.waitFor("Backplane is up: http://127.0.0.1:\(rig.environment["HTTP_PORT"]!)  (Ctrl-C to stop)")
        // Started in plan order; each service only once the broker answered its probe.
        let started = running.report.split(separator: "\n").filter { $0.hasPrefix("[up] started ") }
            .map { $0.dropFirst("[up] started ".count).prefix { $0 != " " } }
        #expect(started == ["broker", "auth", "orders", "gateway"])
        #expect(rig.read("order").hasPrefix("broker\n"))
        #expect(Set(rig.read("order").split(separator: "\n")) == ["broker", "auth", "orders", "gateway"])
        #expect(running.output.contains("orders   | broker was ready\n"))
        #expect(!rig.read("probes").isEmpty)
        let report = running.report
        // Not ready at once: the gateway answered 503 for a second first.
        #expect(report.contains("[up] waiting for http://127.0.0.1:\(rig.environment["HTTP_PORT"]!)/readyz (up to 20s)"))
        #expect(running.output.contains("auth     | broker was ready\n"))
        #expect(running.output.contains("orders   | first line\norders   | second line\n") || running.output.contains("orders   | second line\n"))
        #expect(running.output.contains("broker   | broker starting\n"))
        #expect(running.output.contains("gateway  | gateway listening on"))
        let pids = ["broker", "auth", "orders", "gateway"].flatMap(running.pids(of:))
        #expect(pids.count == 4 && pids.allSatisfy(Self.isRunning))

        running.inbox.send(SIGINT)
        #expect(try await running.finish() == 128 + SIGINT)
        #expect(running.report.contains("[up] received SIGINT: shutting down"))
        #expect(running.report.contains("[up] stopping 4 processes (SIGTERM; SIGKILL after 5s, or at a second Ctrl-C)"))
        #expect(running.report.contains("[up] all processes stopped; none left behind"))
        #expect(!pids.contains(where: Self.isRunning))
        // The last line without a newline, written when its pipe closed.
        #expect(running.output.contains("auth     | no newline\n"))
    }

    @Test("RESTART=always starts a process that died again after RESTART_DELAY")
    func restartAlways() async throws {
        let rig = try Rig()
        rig.script("auth", """
            echo "auth run $$"
            sleep 0.3
            exit 3
            """)
        let running = try Running(try rig.plan(["RESTART": "always", "RESTART_DELAY": "0.2"]), in: rig.folder)
        try await running.waitFor("exited unexpectedly: exit code 3; restarting it in 0.2s", count: 2)
        try await running.waitFor("[up] started auth (pid", count: 3)
        let pids = running.pids(of: "auth")
        #expect(Set(pids).count == pids.count)
        #expect(running.pids(of: "orders").count == 1)
        running.inbox.send(SIGTERM)
        #expect(try await running.finish() == 128 + SIGTERM)
        #expect(running.report.contains("none left behind"))
    }

    @Test("RESTART=no reports a process that died, with its signal, and the others keep running")
    func restartNo() async throws {
        let rig = try Rig()
        let running = try Running(try rig.plan(), in: rig.folder)
        try await running.waitFor("Backplane is up")
        let auth = try #require(running.pids(of: "auth").first)
        kill(auth, SIGKILL)
        try await running.waitFor(
            "[up] warning: auth (pid \(auth)) exited unexpectedly: killed by SIGKILL (exit code 137); 3 other processes keep running"
        )
        try await Task.sleep(for: .milliseconds(500))
        #expect(running.pids(of: "auth") == [auth])
        #expect(running.pids(of: "orders").allSatisfy(Self.isRunning))
        running.inbox.send(SIGHUP)
        #expect(try await running.finish() == 128 + SIGHUP)
        #expect(running.report.contains("stopping 3 processes"))
    }

    @Test("a process that ignores SIGTERM gets SIGKILL after STOP_TIMEOUT")
    func stubborn() async throws {
        let rig = try Rig()
        rig.script("orders", """
            exec python3 -u -c '
            import signal, time
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            print("ignoring SIGTERM")
            time.sleep(600)
            '
            """)
        let running = try Running(try rig.plan(["STOP_TIMEOUT": "1"]), in: rig.folder)
        try await running.waitFor("Backplane is up")
        let orders = try #require(running.pids(of: "orders").first)
        #expect(running.output.contains("orders   | ignoring SIGTERM"))
        let stopped = ContinuousClock.now
        running.inbox.send(SIGTERM)
        #expect(try await running.finish() == 128 + SIGTERM)
        let took = ContinuousClock.now - stopped
        #expect(took >= .milliseconds(900) && took < .seconds(4), "took \(took)")
        #expect(running.report.contains("[up] warning: orders (pid \(orders)) still running: SIGKILL"))
        #expect(running.report.contains("[up] orders stopped: killed by SIGKILL (exit code 137)"))
        #expect(running.report.contains("none left behind"))
        #expect(!Self.isRunning(orders))
    }

    @Test("a second signal skips the grace period: SIGKILL at once")
    func secondSignal() async throws {
        let rig = try Rig()
        rig.script("orders", """
            exec python3 -u -c '
            import signal, time
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            time.sleep(600)
            '
            """)
        let running = try Running(try rig.plan(["STOP_TIMEOUT": "30"]), in: rig.folder)
        try await running.waitFor("Backplane is up")
        let stopped = ContinuousClock.now
        running.inbox.send(SIGINT)
        try await running.waitFor("stopping 4 processes")
        running.inbox.send(SIGINT)
        #expect(try await running.finish() == 128 + SIGINT)
        #expect(ContinuousClock.now - stopped < .seconds(5))
        #expect(running.report.contains("still running: SIGKILL"))
    }

    @Test("a port already in use stops the run before anything starts")
    func portTaken() async throws {
        let rig = try Rig()
        let listener = try Listener()
        let running = try Running(try rig.plan(["HTTP_PORT": String(listener.port)]), in: rig.folder)
        #expect(try await running.finish() == 1)
        #expect(
            running.report.contains(
                "[up] error: port \(listener.port) (HTTP_PORT) is already in use: is Backplane already running? Stop it or set HTTP_PORT"
            ))
        #expect(!running.report.contains("started"))
        #expect(rig.read("order").isEmpty)
    }

    @Test("a missing executable is named")
    func missing() async throws {
        let rig = try Rig()
        try FileManager.default.removeItem(atPath: rig.bin + "/orders")
        let running = try Running(try rig.plan(), in: rig.folder)
        #expect(try await running.finish() == 1)
        #expect(
            running.report.contains(
                "[up] error: executable \(rig.bin)/orders not found (build first, or set BACKPLANE_BIN_DIR)"))
    }

    @Test("every process gone (RESTART=no): reported, exit code 1")
    func allExited() async throws {
        let rig = try Rig()
        rig.script("broker", "[ \"$1\" = --probe ] && exit 0; echo bye; exit 0")
        for name in ["auth", "orders", "gateway"] { rig.script(name, "exit 0") }
        let running = try Running(try rig.plan(["READY_TIMEOUT": "1"]), in: rig.folder)
        #expect(try await running.finish() == 1)
        #expect(running.report.contains("[up] warning: every process has exited"))
        #expect(running.report.contains("gateway exited before it was ready") || running.report.contains("not ready"))
    }

    @Test("the backplane-up executable: ready, restarts under RESTART=always, SIGINT stops everything")
    func executable() async throws {
        let rig = try Rig()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let binDir = ProcessInfo.processInfo.environment["BACKPLANE_BIN_DIR"] ?? root + "/.build/debug"
        let executable = binDir + "/backplane-up"
        try #require(FileManager.default.isExecutableFile(atPath: executable), "build backplane-up first")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.environment = rig.environment.merging([
            "REPO_ROOT": rig.folder, "RESTART": "always", "RESTART_DELAY": "0.1",
        ]) { _, new in new }
        let outputPath = rig.folder + "/up.log"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardOutput = log
        process.standardError = log
        try process.run()
        func text() -> String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
        func waitFor(_ needle: String, count: Int = 1) async throws {
            let deadline = ContinuousClock.now + .seconds(20)
            while text().components(separatedBy: needle).count - 1 < count {
                if ContinuousClock.now > deadline {
                    Issue.record("no '\(needle)':\n\(text())")
                    throw CancellationError()
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        try await waitFor("[up] Backplane is up")
        // It leads a process group of its own, and so does each process it starts.
        #expect(getpgid(process.processIdentifier) == process.processIdentifier)
        let auth = try #require(
            text().split(separator: "\n").first { $0.hasPrefix("[up] started auth (pid ") }
                .flatMap { pid_t($0.dropFirst("[up] started auth (pid ".count).prefix { $0.isNumber }) })
        #expect(getpgid(auth) == auth)
        kill(auth, SIGKILL)
        try await waitFor("[up] started auth (pid", count: 2)
        #expect(text().contains("auth (pid \(auth)) exited unexpectedly: killed by SIGKILL (exit code 137); restarting it in 0.1s"))
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + SIGINT)
        #expect(text().contains("[up] all processes stopped; none left behind"))
        #expect(text().contains("auth     | broker was ready"))
        try log.close()
    }
}

/// A port nothing else will take while the test holds it.
func freePort() -> Int {
    let listener = try! Listener()
    return listener.port
}

/// A listening TCP socket on 127.0.0.1, closed when released.
final class Listener {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw UpError("cannot listen on 127.0.0.1") }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }
}
