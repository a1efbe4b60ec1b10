import Foundation
import Glibc
import TestSupport
import Testing

/// Starts the real executables as processes, the way an operator would.
final class SystemHarness: @unchecked Sendable {
    // Mutated only from the test that owns the harness, sequentially.
    private(set) var processes: [(name: String, process: Process)] = []
    let environment: [String: String]
    let httpPort: Int
    /// The gateway's admin port (its `/metrics`), given to a gateway this harness starts unless
    /// the test names another.
    let gatewayAdminPort: Int
    let logDirectory: URL

    /// The repository's root folder (its deploy/scripts, for the tests of what runs them).
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    static var binDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["BACKPLANE_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug")
    }

    static var databaseURL: String {
        ProcessInfo.processInfo.environment["DATABASE_URL"] ?? "postgres://backplane:backplane@127.0.0.1:5432/backplane"
    }

    /// The database this harness's processes use: `DATABASE_URL`, or one of its own.
    let databaseURL: String

    /// A harness on `DATABASE_URL`; with `ownDatabase`, on a new database created for it (with
    /// psql), so that a printing process it starts takes no paid order of another suite running
    /// at the same time, and its own orders meet no other suite's printing.
    init(ownDatabase: Bool = false) throws {
        try TestLayers.requireProcesses()
        databaseURL = ownDatabase ? try Self.createDatabase() : Self.databaseURL
        let ports = try (0..<5).map { _ in try Self.freePort() }
        httpPort = ports[3]
        gatewayAdminPort = ports[4]
        environment = [
            "BROKER_BIND": "tcp://127.0.0.1:\(ports[0])", "BROKER_URL": "tcp://127.0.0.1:\(ports[0])",
            "EVENTS_XSUB_BIND": "tcp://127.0.0.1:\(ports[1])", "EVENTS_PUB_URL": "tcp://127.0.0.1:\(ports[1])",
            "EVENTS_XPUB_BIND": "tcp://127.0.0.1:\(ports[2])", "EVENTS_SUB_URL": "tcp://127.0.0.1:\(ports[2])",
            "HTTP_PORT": "\(ports[3])", "DATABASE_URL": databaseURL, "HEARTBEAT_INTERVAL_MS": "250",
            "HEARTBEAT_LIVENESS": "3",
            // Every process logs at debug, and every log is searched for the secrets the tests
            // used when the harness stops (``SecretLedger``).
            "LOG_LEVEL": "debug",
            // Tests send everything from one address, far faster than a person: the rate limits
            // are out of the way except in the suites that test them (which pass "" for a
            // setting to get its default).
            "RATE_LIMIT_LOGIN": "off", "RATE_LIMIT_REGISTER": "off", "RATE_LIMIT_RECOVERY": "off",
            "RATE_LIMIT_SEARCH": "off", "RATE_LIMIT_WRITE": "off", "RATE_LIMIT_READ": "off",
        ]
        logDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "backplane-system-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
    }

    /// Starts one executable; its output goes to a log file named after it.
    @discardableResult
    func start(_ name: String, extra: [String: String] = [:], arguments: [String] = []) throws -> Process {
        let process = Process()
        process.executableURL = Self.binDirectory.appendingPathComponent(name)
        process.arguments = arguments
        var extra = extra
        if name == "gateway", extra["ADMIN_HTTP_PORT"] == nil { extra["ADMIN_HTTP_PORT"] = "\(gatewayAdminPort)" }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }.merging(extra)
        { _, new in new }
        let log = logDirectory.appendingPathComponent("\(name)-\(processes.count).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        processes.append((name, process))
        return process
    }

    /// Runs an executable (of the build, or at an absolute path) to completion and returns its
    /// exit code and output.
    func runToEnd(_ name: String, arguments: [String], extra: [String: String] = [:]) async throws -> (Int32, String) {
        try await offPool { try self.runBlocking(name, arguments: arguments, extra: extra) }
    }

    private func runBlocking(_ name: String, arguments: [String], extra: [String: String]) throws -> (Int32, String) {
        let path = name.hasPrefix("/") ? name : Self.binDirectory.appendingPathComponent(name).path
        let environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }.merging(extra)
        { _, new in new }
        // posix_spawn and waitpid, the output in a file: Foundation's Process on Linux at times
        // never saw a child end once the child had started a daemon (a PostgreSQL) of its own.
        let output = logDirectory.appendingPathComponent("run-\(UUID().uuidString).out").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let started = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard started == 0 else { throw POSIXError(POSIXErrorCode(rawValue: started) ?? .EIO) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: output)
        let signal = status & 0x7f
        return (signal == 0 ? (status >> 8) & 0xff : 128 + signal, text)
    }

    /// Sends SIGTERM to everything still running and waits; returns each exit status. Then
    /// searches every log for the secrets the tests used, and records an issue for each found.
    func stopAll(timeout: TimeInterval = 20) async -> [(String, Int32?)] {
        await offPool { self.stopBlocking(timeout: timeout) }
    }

    /// The same, for `defer` blocks that cannot await.
    func stopBlocking(timeout: TimeInterval = 20) -> [(String, Int32?)] {
        for (_, process) in processes.reversed() where process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = Date().addingTimeInterval(timeout)
        while processes.contains(where: { $0.process.isRunning }) && Date() < deadline { usleep(50_000) }
        let statuses = processes.map { ($0.name, $0.process.isRunning ? nil : Optional($0.process.terminationStatus)) }
        for (_, process) in processes where process.isRunning { kill(process.processIdentifier, SIGKILL) }
        scanLogsForSecrets()
        return statuses
    }

    /// Records an issue for every secret a test used (``SecretLedger``) that is in a log.
    func scanLogsForSecrets() {
        let files =
            (try? FileManager.default.contentsOfDirectory(at: logDirectory, includingPropertiesForKeys: nil)) ?? []
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for hit in SecretLedger.hits(in: text) {
                Issue.record("a \(hit) is in the log \(file.lastPathComponent) (\(file.path))")
            }
        }
    }

    func logs() -> String {
        let files =
            (try? FileManager.default.contentsOfDirectory(at: logDirectory, includingPropertiesForKeys: nil)) ?? []
        return files.map { "== \($0.lastPathComponent)\n" + ((try? String(contentsOf: $0, encoding: .utf8)) ?? "") }
            .joined(separator: "\n")
    }

    /// `GET path` on the gateway: status and body, or nil when nothing answers.
    func get(_ path: String, headers: [String: String] = [:]) async -> HTTP.Response? {
        let port = httpPort
        return await offPool { HTTP.request(port: port, method: "GET", path: path, headers: headers) }
    }

    /// The gateway's `/metrics`, from its admin port ("" when it does not answer).
    func gatewayMetrics() async -> String {
        let port = gatewayAdminPort
        return await offPool { HTTP.request(port: port, method: "GET", path: "/metrics") }?.body ?? ""
    }

    /// `POST path` with a JSON body on the gateway.
    func post(_ path: String, json: String) async -> HTTP.Response? {
        let port = httpPort
        return await offPool { HTTP.request(port: port, method: "POST", path: path, body: json) }
    }

    /// `POST path` as a patient client sends it: a 503 (auth sheds password hashing it cannot
    /// start soon, when the test shards load both cores) is sent again after its Retry-After,
    /// for up to 30 s. For setting up accounts, not for tests of the 503 itself.
    func postPatiently(_ path: String, json: String) async -> HTTP.Response? {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let response = await post(path, json: json)
            guard response?.status == 503, ContinuousClock.now < deadline else { return response }
            let wait = response?.header("Retry-After").flatMap { Int($0) } ?? 1
            try? await Task.sleep(for: .seconds(min(max(wait, 1), 5)))
        }
    }

    /// Any method on the gateway, with an optional JSON body and headers.
    func send(_ method: String, _ path: String, json: String? = nil, headers: [String: String] = [:]) async
        -> HTTP.Response?
    {
        let port = httpPort
        return await offPool { HTTP.request(port: port, method: method, path: path, body: json, headers: headers) }
    }

    /// Creates an empty database beside the one of `DATABASE_URL` and returns its URL.
    static func createDatabase() throws -> String {
        let name = "system_\(UUID().uuidString.prefix(8).lowercased())"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", databaseURL, "-qc", "CREATE DATABASE \(name)"]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0, var url = URLComponents(string: databaseURL) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "psql could not create \(name)"])
        }
        url.path = "/\(name)"
        return url.string ?? databaseURL
    }

    /// A loopback port for a process to bind (``TestPorts``: never one the kernel hands out).
    static func freePort() throws -> Int { try TestPorts.free() }
}

/// A tiny blocking HTTP/1.1 client for loopback tests.
enum HTTP {
    /// Status, header block and body.
    struct Response {
        let status: Int
        let head: String
        let body: String

        /// A header's value (case-insensitive name).
        func header(_ name: String) -> String? {
            for line in head.split(separator: "\r\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }
    }

    /// A TCP socket connected to 127.0.0.1:`port` whose reads time out after `timeoutSeconds`,
    /// or nil (the caller closes it).
    static func connectedSocket(port: Int, timeoutSeconds: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    static func request(
        port: Int, method: String, path: String, body: String? = nil, headers: [String: String] = [:],
        contentType: String = "application/json"
    ) -> Response? {
        guard let fd = connectedSocket(port: port, timeoutSeconds: 10) else { return nil }
        defer { close(fd) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body {
            head += "Content-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n"
        }
        let request = Array((head + "\r\n" + (body ?? "")).utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        let text = String(decoding: data, as: UTF8.self)
        SecretLedger.note(headers: headers, body: body, response: text)
        guard let headerEnd = text.range(of: "\r\n\r\n") else { return nil }
        let statusLine = text[..<headerEnd.lowerBound].split(separator: "\r\n").first ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        return Response(
            status: status, head: String(text[..<headerEnd.lowerBound]), body: String(text[headerEnd.upperBound...]))
    }
}

/// Runs blocking work (sockets, process waits) on a thread of its own, so tests never tie up the
/// few threads of Swift's cooperative pool that other suites run on.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    let result: Result<T, any Error> = await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: Result { try work() }) }.start()
    }
    return try result.get()
}

/// The non-throwing form.
func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
