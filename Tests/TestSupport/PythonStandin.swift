import Foundation

/// A local stand-in of an outside provider, `deploy/<folder>/standin.py`, run as a process of
/// its own: Open States, Stripe, Amazon's PA-API.
public enum PythonStandin {
    /// What went wrong starting one.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `deploy/<folder>/standin.py` on `port` (`STANDIN_PORT`) with `environment` added to
    /// this process's, its output in a new log file, and returns once the log shows `banner`
    /// (within 10 s; otherwise the process is stopped and the log is in the error).
    public static func start(
        _ folder: String, port: Int, environment: [String: String], banner: String
    ) async throws -> (process: Process, log: URL) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("\(folder)-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("deploy/\(folder)/standin.py").path]
        var variables = ProcessInfo.processInfo.environment
        variables["STANDIN_PORT"] = "\(port)"
        variables.merge(environment) { _, new in new }
        process.environment = variables
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        for _ in 0..<100 {
            if (try? String(contentsOf: log, encoding: .utf8))?.contains(banner) == true { return (process, log) }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.terminate()
        throw Failure(
            description: "the \(folder) stand-in did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
    }
}
