import ArgumentParser
import Foundation

/// `backup` and `restore`: the database's backup is deploy/scripts/backup.sh's; the tool runs
/// that script (with this environment, DATABASE_URL included) so that there is one way to take
/// and restore one, and answers with its exit status.
enum BackupScript {
    /// Runs `script` with `arguments`, its output passed through; its exit status is the tool's.
    static func run(_ script: String, _ arguments: [String]) throws {
        guard FileManager.default.isExecutableFile(atPath: script) else {
            throw ValidationError(
                "\(script) is not an executable file (give --script, or run from the repository's root)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw ExitCode(process.terminationStatus) }
    }
}

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Back up the database: runs `deploy/scripts/backup.sh backup`.")

    @Option(help: "The backup script.") var script = "deploy/scripts/backup.sh"

    func run() async throws { try BackupScript.run(script, ["backup"]) }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore a backup: runs `deploy/scripts/backup.sh restore --target TARGET`.")

    @Option(help: "The backup script.") var script = "deploy/scripts/backup.sh"
    @Option(help: "What to restore, as the script names it.") var target: String

    func run() async throws { try BackupScript.run(script, ["restore", "--target", target]) }
}
