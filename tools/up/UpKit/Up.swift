import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `backplane-up`, make up's supervisor. deploy/scripts/up.sh prepares the database and the
/// build, then runs it. Its settings: `Up.settings`.
public enum Up {
    /// Runs the whole system in the foreground; the exit code is the process's.
    public static func main(arguments: [String], environment: [String: String]) -> Int32 {
        let report = Reporter(fd: 2)
        switch arguments.first {
        case nil: break
        case "--help", "-h":
            writeAll(1, Array(help.utf8))
            return 0
        case "--settings-json":
            writeAll(1, Array(settingsJSON.utf8))
            return 0
        case let argument?:
            report.error("unknown argument '\(argument)' (backplane-up --help)")
            return 2
        }
        do {
            let signals = try SignalInbox()
            signals.receiveSignals()
            // A process group of its own (unless it leads one already, started by an interactive
            // shell): a terminal's Ctrl-C then reaches up.sh alone, which passes each signal on
            // once. Were it in up.sh's group too, one Ctrl-C would arrive twice and count as the
            // second one, which skips the graceful stop.
            if getpgrp() != getpid() { _ = setpgid(0, 0) }
            // REPO_ROOT: up.sh's (lib.sh); the repository's files are found through it.
            let root = environment["REPO_ROOT"].flatMap { $0.isEmpty ? nil : $0 }
                ?? FileManager.default.currentDirectoryPath
            let registry: String
            do {
                registry = try String(contentsOfFile: "\(root)/deploy/services.txt", encoding: .utf8)
            } catch {
                throw UpError("cannot read \(root)/deploy/services.txt (set REPO_ROOT to the repository)")
            }
            let plan = try UpPlan(
                environment: environment, workers: Registry.names(ofKind: "worker", in: registry), root: root)
            let docs = environment["API_DOCS_DIR"] ?? ""
            if docs.isEmpty {
                report.info(
                    "no Swagger UI (pip package swagger-ui-bundle-v2; bootstrap.sh installs it): /docs will say the reference is not installed"
                )
            } else if !FileManager.default.fileExists(atPath: "\(docs)/swagger-ui-bundle.js") {
                report.warn(
                    "API_DOCS_DIR=\(docs) has no swagger-ui-bundle.js; /docs will say the reference is not installed")
            }
            let supervisor = try Supervisor(
                plan: plan, signals: signals, output: 1, report: report, checksEveryChild: true)
            return supervisor.run()
        } catch {
            report.error("\(error)")
            return 1
        }
    }
}
