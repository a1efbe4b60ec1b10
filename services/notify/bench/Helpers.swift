import Foundation
import NIOCore
import NIOPosix

/// A child process the benchmark starts (a sink) and stops with SIGTERM at the end.
final class Child {
    let process: Process
    let output: Pipe

    init(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        self.process = process
        self.output = output
    }

    /// Waits for a line of output containing `marker` and returns it.
    func waitFor(_ marker: String) throws -> String {
        var seen = ""
        while true {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { throw BenchError("\(process.executableURL?.path ?? "child") exited: \(seen)") }
            seen += String(decoding: data, as: UTF8.self)
            if let line = seen.split(separator: "\n").first(where: { $0.contains(marker) }) { return String(line) }
        }
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A TCP port on 127.0.0.1 that nothing listens on right now.
func unusedPort() async throws -> Int {
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .bind(host: "127.0.0.1", port: 0).get()
    let port = channel.localAddress?.port ?? 0
    try await channel.close()
    return port
}

/// The repository's root, from where this file was compiled (the SMTP sink's script is there).
var repositoryRoot: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
}

/// Seconds since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double { (ContinuousClock.now - start) / .seconds(1) }
