import ArgumentParser
import BrokerService
import CivicService
import Foundation
import GatewayService
import OrdersService
import ServiceKit
import Store

/// `check-config`: the environment read by each process's own settings code, the way it reads
/// it at start, without starting anything: a bad value is named as the process would name it,
/// and the tool exits 78 as the process would.
struct CheckConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Check this environment's settings for every process (or those named); exit 78 naming each bad one.",
        discussion: """
            Each process's secret files (NAME_FILE), LOG_LEVEL and LOG_FORMAT; the broker's and the gateway's \
            whole configuration; every worker's common settings (database, broker, heartbeats, concurrency, \
            timeouts, admin port), and orders' and civic's own settings types. A worker's other settings \
            are read where the worker builds its operations, and are checked when it starts.
            """)

    @Option(name: .customLong("process"), help: "A process to check (repeatable; default: every one).")
    var processes: [String] = []

    /// One process: its settings and the code that reads them.
    struct Checked {
        let spec: ProcessSpec
        let read: (ProcessEnvironment) throws -> Void
    }

    static var all: [Checked] {
        [
            Checked(spec: BrokerService.spec) { _ = try BrokerService.configuration($0) },
            Checked(spec: Gateway.spec) { _ = try GatewaySettings($0) },
        ]
            + Workers.specs.map { spec in
                Checked(spec: spec) { environment in
                    _ = try WorkerHost.CommonSettings(environment)
                    switch spec.name {
                    case "orders": _ = try OrdersService.Configuration(environment)
                    case "civic": _ = try FeedSettings(environment: environment)
                    default: break
                    }
                }
            }
    }

    func validate() throws {
        let names = Self.all.map(\.spec.name)
        for name in processes where !names.contains(name) {
            throw ValidationError("unknown process \(name); one of \(names.joined(separator: ", "))")
        }
    }

    func run() async throws {
        var bad = 0
        for checked in Self.all where processes.isEmpty || processes.contains(checked.spec.name) {
            let name = checked.spec.name
            do {
                let environment = try ProcessEnvironment.process.readingSecretFiles(checked.spec.settings)
                try LogSetup.check(environment)
                try checked.read(environment)
                print("\(name): ok")
            } catch let error as ProcessEnvironment.InvalidSetting {
                bad += 1
                // A secret's value is not repeated, only its name.
                let secret = checked.spec.settings.contains { $0.isSecret && $0.name == error.name }
                let given = secret ? error.name : "\(error.name)=\(error.value)"
                print("\(name): \(given) is not valid: expected \(error.expected)")
            } catch let error as StoreError where error.code == .invalidDatabaseURL {
                bad += 1
                print("\(name): \(error.message)")  // names DATABASE_URL, its password redacted
            } catch {
                bad += 1
                print("\(name): \(SafeErrorDescription.of(error))")
            }
        }
        if bad > 0 {
            FileHandle.standardError.write(
                Data("backplane-admin: \(bad) process(es) would refuse this environment\n".utf8))
            throw ExitCode(78)
        }
    }
}
