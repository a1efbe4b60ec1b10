import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `backup` and `restore`: the backups are deploy/scripts/backup.sh's and restore.sh's
/// (pgBackRest); the tool runs those scripts (with this environment: BACKUP_REPO, the key, ...)
/// so that there is one way to take and restore a backup, and answers with their exit status.
enum BackupScript {
    /// Runs `name` in `folder` with `arguments`, its output passed through; its exit status is the tool's.
    static func run(_ folder: String, _ name: String, _ arguments: [String]) throws {
        let script = URL(fileURLWithPath: folder).appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: script) else {
            throw ValidationError(
                "\(script) is not an executable file (give --scripts, or run from the repository's root)")
        }
        // posix_spawn and waitpid rather than Foundation's Process, which on Linux sometimes never
        // saw the script end once it had started a PostgreSQL that outlives it (restore.sh).
        let argv = ([script] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let started = posix_spawn(&pid, script, nil, nil, argv, environ)
        guard started == 0 else {
            throw ValidationError("could not start \(script): \(String(cString: strerror(started)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw ExitCode(1) }
        }
        let signal = status & 0x7f
        let code = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        if code != 0 { throw ExitCode(code) }
    }
}

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Back up the database and printing's files (encrypted, pgBackRest): runs `deploy/scripts/backup.sh backup [POINT]`.")

    @Option(help: "The folder of backup.sh and restore.sh.") var scripts = "deploy/scripts"
    @Option(help: "Then make a named restore point.") var point: String?

    func run() async throws { try BackupScript.run(scripts, "backup.sh", ["backup"] + (point.map { [$0] } ?? [])) }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore the backups to a point into a fresh database: runs `deploy/scripts/restore.sh TARGET`.")

    @Option(help: "The folder of backup.sh and restore.sh.") var scripts = "deploy/scripts"
    @Option(help: "A restore point's name, a time (2026-12-07 17:00:00+00) or latest.") var target: String

    func run() async throws { try BackupScript.run(scripts, "restore.sh", [target]) }
}
