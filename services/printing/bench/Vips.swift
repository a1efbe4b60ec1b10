import Foundation

/// The same operations done by the `vips` command-line tool (libvips), one process per step with
/// `.v` (vips' own uncompressed format) files in between, as a shell script would chain them.
struct Vips {
    let executable: URL
    let directory: URL

    /// `vips` from the `PATH`, or nil.
    static func find() -> URL? {
        for path in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let url = URL(fileURLWithPath: String(path)).appendingPathComponent("vips")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    /// The installed version line.
    func version() throws -> String {
        try run(["--version"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs the steps one after the other; each is an argument list for `vips`.
    func pipeline(_ steps: [[String]]) throws {
        for step in steps { _ = try run(step) }
    }

    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw VipsFailed(arguments: arguments, output: String(decoding: output, as: UTF8.self))
        }
        return String(decoding: output, as: UTF8.self)
    }

    struct VipsFailed: Error, CustomStringConvertible {
        let arguments: [String]
        let output: String
        var description: String { "vips \(arguments.joined(separator: " ")) failed: \(output)" }
    }
}
